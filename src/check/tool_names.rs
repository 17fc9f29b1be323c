//! Tool names and types in `tools:` that no known tool has.
//!
//! An include or exclude with a misspelt tool (`fiel_edit`) or type
//! (`type:fs-write`) is valid YAML and a valid pattern, and it silently
//! does nothing: an exclude that was meant to hide `file_edit` hides
//! nothing. The names harnesses offer are known ([`CHIBI_TOOLS`] and the
//! other harnesses' native tools in [`TOOL_MAP`]), but plugins and MCP
//! servers add their own, so an unknown name is only reported when it is
//! one typo away from a known one. Types are a short list fixed by chibi,
//! so any unknown type is reported (`lint::unknown-tool`).

use crate::catalogue::tools::TOOL_MAP;
use crate::catalogue::{CHIBI_TOOLS, OTHER_TOOL_TYPES};
use crate::diagnostic::did_you_mean;

fn known_names() -> impl Iterator<Item = &'static str> {
    CHIBI_TOOLS.iter().map(|(name, _)| *name).chain(
        TOOL_MAP
            .iter()
            .map(|m| m.tool)
            .filter(|t| !t.ends_with('*')),
    )
}

fn known_types() -> Vec<&'static str> {
    let mut types: Vec<&'static str> = CHIBI_TOOLS
        .iter()
        .map(|(_, ty)| *ty)
        .chain(TOOL_MAP.iter().map(|m| m.tool_type))
        .chain(OTHER_TOOL_TYPES.iter().copied())
        .collect();
    types.sort_unstable();
    types.dedup();
    types
}

/// Why a plain tool name in `tools:` is probably wrong, with a suggestion.
pub fn unknown_name(name: &str) -> Option<(String, String)> {
    if known_names().any(|n| n == name) {
        return None;
    }
    let close = did_you_mean(name, known_names())?;
    Some((
        format!("no known tool is named `{name}`, so this pattern only matches a plugin or MCP tool of that exact name"),
        format!("did you mean `{close}`?"),
    ))
}

/// Why `type:TYPE` in `tools:` can match nothing, with a suggestion.
pub fn unknown_type(ty: &str) -> Option<(String, String)> {
    let types = known_types();
    if types.contains(&ty) {
        return None;
    }
    let help = match did_you_mean(ty, types.iter().copied()) {
        Some(close) => format!("did you mean `type:{close}`?"),
        None => format!("tool types are {}", types.join(", ")),
    };
    Some((
        format!("no tool has the type `{ty}`, so this pattern matches nothing"),
        help,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misspelt_names_are_caught_and_unknown_plugins_are_not() {
        assert_eq!(unknown_name("file_edit"), None);
        assert_eq!(unknown_name("Bash"), None);
        assert!(unknown_name("fiel_edit").unwrap().1.contains("`file_edit`"));
        assert!(unknown_name("shell_exce")
            .unwrap()
            .1
            .contains("`shell_exec`"));
        // A plugin's own tool, far from every known name.
        assert_eq!(unknown_name("jira_create_issue"), None);
    }

    #[test]
    fn every_unknown_type_is_caught() {
        assert_eq!(unknown_type("fs_write"), None);
        assert_eq!(unknown_type("plugin"), None);
        assert!(unknown_type("fs-write")
            .unwrap()
            .1
            .contains("`type:fs_write`"));
        assert!(unknown_type("filesystem")
            .unwrap()
            .1
            .contains("fs_read, fs_write"));
    }
}
