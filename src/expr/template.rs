//! `${{ expr }}`: the one syntax that marks CEL inside an effect value.
//!
//! A value that is exactly one `${{ ... }}` (surrounding spaces allowed) is an
//! expression whose result is the value, of any type. Text with `${{ ... }}`
//! inside is a string with each expression's result interpolated. Anything
//! else is a literal. The expression ends at the first `}}`; write `} }` when
//! a map literal inside needs two closing braces.

/// One piece of a template, with its character offset in the template text.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece<'a> {
    Text(&'a str),
    Expr { source: &'a str, char_offset: usize },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Template<'a> {
    Literal,
    /// The whole value is one expression.
    Whole {
        source: &'a str,
        char_offset: usize,
    },
    /// Text with interpolated expressions.
    Interpolated(Vec<Piece<'a>>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct UnclosedTemplate {
    pub char_offset: usize,
}

pub const OPEN: &str = "${{";
pub const CLOSE: &str = "}}";

pub fn parse(text: &str) -> Result<Template<'_>, UnclosedTemplate> {
    if !text.contains(OPEN) {
        return Ok(Template::Literal);
    }
    let mut pieces = Vec::new();
    let mut rest = text;
    let mut consumed = 0; // bytes of `text` before `rest`
    while let Some(start) = rest.find(OPEN) {
        if start > 0 {
            pieces.push(Piece::Text(&rest[..start]));
        }
        let body_start = start + OPEN.len();
        let Some(len) = rest[body_start..].find(CLOSE) else {
            return Err(UnclosedTemplate {
                char_offset: text[..consumed + start].chars().count(),
            });
        };
        let source = &rest[body_start..body_start + len];
        let char_offset = text[..consumed + body_start].chars().count();
        pieces.push(Piece::Expr {
            source,
            char_offset,
        });
        let next = body_start + len + CLOSE.len();
        consumed += next;
        rest = &rest[next..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest));
    }
    let non_blank: Vec<&Piece> = pieces
        .iter()
        .filter(|p| !matches!(p, Piece::Text(t) if t.trim().is_empty()))
        .collect();
    if let [Piece::Expr {
        source,
        char_offset,
    }] = non_blank.as_slice()
    {
        return Ok(Template::Whole {
            source,
            char_offset: *char_offset,
        });
    }
    Ok(Template::Interpolated(pieces))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_whole_and_interpolated() {
        assert_eq!(parse("plain text").unwrap(), Template::Literal);
        assert_eq!(
            parse(" ${{ -size(tool_calls) }} ").unwrap(),
            Template::Whole {
                source: " -size(tool_calls) ",
                char_offset: 4
            }
        );
        let t = parse("no ${{ command }} here").unwrap();
        assert_eq!(
            t,
            Template::Interpolated(vec![
                Piece::Text("no "),
                Piece::Expr {
                    source: " command ",
                    char_offset: 6
                },
                Piece::Text(" here"),
            ])
        );
    }

    #[test]
    fn unclosed_is_an_error_at_the_opening() {
        assert_eq!(
            parse("a ${{ x").unwrap_err(),
            UnclosedTemplate { char_offset: 2 }
        );
    }
}
