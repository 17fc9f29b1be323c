//! Schema descriptions that read whole in an editor. Doc comments are
//! wrapped at 80 columns in the source, and schemars keeps those line
//! breaks; an editor's hover then breaks sentences in the middle ("May
//! embed" / "CEL as ..."). Lines of one paragraph are joined here, so the
//! source stays wrapped and the schema holds whole sentences; blank lines
//! still separate paragraphs.

use serde_json::Value as Json;

/// Joins the wrapped lines of every `description` and `title` in a schema.
pub fn unwrap_descriptions(value: &mut Json) {
    match value {
        Json::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Json::String(text) if key == "description" || key == "title" => {
                        *text = unwrap(text);
                    }
                    _ => unwrap_descriptions(v),
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// One paragraph per line: wrapped lines joined by a space, paragraphs
/// separated by a blank line.
fn unwrap(text: &str) -> String {
    text.split("\n\n")
        .map(|para| {
            para.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::unwrap;

    #[test]
    fn joins_lines_and_keeps_paragraphs() {
        assert_eq!(unwrap("May embed\nCEL as `x`."), "May embed CEL as `x`.");
        assert_eq!(unwrap("One\ntwo.\n\nThree."), "One two.\n\nThree.");
        assert_eq!(unwrap("whole"), "whole");
    }
}
