//! The reference commands, `policy schema`, `policy hooks` and `policy
//! adapters`: they print what the catalogue and the format define, and the
//! generated docs (schema/policy.schema.json, docs/hooks.md,
//! docs/adapters.md) are their output.

use super::output::{errln, out, outln};
use super::ExitStatus;
use crate::adapters::tool_call;
use crate::catalogue::{FailureMode, Field, HookClass, Presence, Ty};
use crate::{catalogue, model};

#[derive(clap::Args)]
pub struct SchemaArgs {
    /// Print the schema of test files (`*.test.yaml`) instead.
    #[arg(long)]
    pub tests: bool,
}

#[derive(clap::Args)]
pub struct HooksArgs {
    /// Show one hook point: what it is, its effects and its payload fields.
    pub name: Option<String>,
    /// Print the full reference as Markdown (docs/hooks.md).
    #[arg(long, conflicts_with = "name")]
    pub markdown: bool,
}

#[derive(clap::Args)]
pub struct AdaptersArgs {
    /// Print the full table as Markdown (docs/adapters.md).
    #[arg(long)]
    pub markdown: bool,
}

pub fn schema(args: SchemaArgs) -> ExitStatus {
    if args.tests {
        out!("{}", crate::testing::file::schema_text());
    } else {
        out!("{}", model::schema_text());
    }
    ExitStatus::Success
}

pub fn hooks(args: HooksArgs) -> ExitStatus {
    if let Some(name) = args.name {
        return one_hook(&name);
    }
    if args.markdown {
        out!("{}", catalogue::markdown());
        return ExitStatus::Success;
    }
    for h in catalogue::HOOKS {
        let effects: Vec<&str> = h.effects.iter().map(|e| e.key()).collect();
        let effects = if effects.is_empty() {
            "observe only".to_string()
        } else {
            effects.join(", ")
        };
        outln!("{:<22} {:<14} {}", h.name, h.class.as_str(), effects);
    }
    ExitStatus::Success
}

/// `policy hooks NAME`: the catalogue's entry for one hook point, the
/// part of docs/hooks.md a rule author needs while writing a condition.
fn one_hook(name: &str) -> ExitStatus {
    let Some(hook) = catalogue::hook(name) else {
        let hint = crate::diagnostic::did_you_mean(name, catalogue::hook_names());
        errln!(
            "error: unknown hook point `{name}`{}",
            hint.map(|h| format!("; did you mean `{h}`?"))
                .unwrap_or_else(|| "; `policy hooks` lists them".into())
        );
        return ExitStatus::CouldNotRun;
    };
    outln!("{} ({})", hook.name, hook.class.as_str());
    outln!("  {}", hook.doc);
    let effects: Vec<&str> = hook.effects.iter().map(|e| e.key()).collect();
    if effects.is_empty() {
        outln!("effects: none (observe only)");
    } else {
        outln!("effects: {}", effects.join(", "));
        let failure = match (hook.class, hook.class.default_failure()) {
            (HookClass::ToolGate, FailureMode::Closed) => "block",
            (_, FailureMode::Closed) => "deny",
            (_, FailureMode::Open) => "no change",
        };
        outln!("when the policy cannot decide: {failure}");
    }
    outln!("payload (each top-level field is also a variable):");
    let mut rows = Vec::new();
    for f in hook.payload {
        field_rows(&mut rows, "", f);
    }
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let ty_width = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
    for (name, ty, doc) in rows {
        outln!("  {name:<width$}  {ty:<ty_width$}  {doc}");
    }
    let builtins: Vec<&str> = catalogue::BUILTIN_VARIABLES
        .iter()
        .map(|f| f.name)
        .collect();
    outln!("every condition also sees: {}", builtins.join(", "));
    ExitStatus::Success
}

fn field_rows(rows: &mut Vec<(String, String, String)>, prefix: &str, f: &Field) {
    let doc = match f.presence {
        Presence::Always => f.doc.to_string(),
        Presence::Optional => format!("{} (optional: guard with `has()`)", f.doc),
    };
    rows.push((format!("{prefix}{}", f.name), f.ty.to_string(), doc));
    let nested = match f.ty {
        Ty::Object(fields) => Some((fields, format!("{prefix}{}.", f.name))),
        Ty::List(Ty::Object(fields)) => Some((*fields, format!("{prefix}{}[].", f.name))),
        _ => None,
    };
    if let Some((fields, prefix)) = nested {
        for inner in fields {
            field_rows(rows, &prefix, inner);
        }
    }
}

pub fn adapters(args: AdaptersArgs) -> ExitStatus {
    if args.markdown {
        out!("{}", tool_call::markdown());
        return ExitStatus::Success;
    }
    for m in tool_call::TOOL_MAP {
        let hooks = tool_call::permission_hooks(m.action);
        outln!(
            "{:<12} {:<20} {:<9} {}",
            m.harness.name(),
            m.tool,
            m.tool_type,
            hooks
        );
    }
    ExitStatus::Success
}
