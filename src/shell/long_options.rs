//! Does a long option take the next word as its value?
//!
//! Wrappers and launchers (`sudo`, `env`, `xargs`, `parallel`) must skip
//! their own options to find the command they run, and a value-taking
//! option swallows the word after it: `xargs --max-procs 4 rm -rf` runs
//! `rm`, not `4`. getopt_long and Perl's Getopt::Long also accept any
//! unambiguous prefix (`--max-p 4`), and our lists of a program's options
//! are not always complete. Reading an option we cannot place as a flag
//! would let `sudo --us root rm -rf /` pass as a program named `root`, so
//! such an option is [`Takes::Unsure`] and the caller reads the line both
//! ways: a reading that runs nothing harmful costs nothing, and the
//! harmful one is seen.

/// How one long option (written without `=value`) reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// It takes the next word as its value.
    Value,
    /// It stands alone.
    Flag,
    /// Either could be true: read the line both ways.
    Unsure,
}

/// A program's long options, as far as they are known.
pub struct LongOptions {
    /// Options that take a value (the next word when written without `=`).
    pub value: &'static [&'static str],
    /// Options that stand alone, or take a value only after `=`.
    pub flag: &'static [&'static str],
    /// Every option of the program is listed, so a prefix of exactly one
    /// kind of option is read as that option, as getopt_long does.
    pub complete: bool,
    /// Getopt::Long ignores the case of long option names.
    pub ignore_case: bool,
}

impl LongOptions {
    /// How `--name` reads (without its dashes and without `=value`).
    pub fn takes(&self, name: &str) -> Takes {
        let name = if self.ignore_case {
            name.to_ascii_lowercase()
        } else {
            name.to_string()
        };
        if self.value.contains(&name.as_str()) {
            return Takes::Value;
        }
        if self.flag.contains(&name.as_str()) {
            return Takes::Flag;
        }
        if !self.complete || name.is_empty() {
            return Takes::Unsure;
        }
        let value = self.value.iter().any(|o| o.starts_with(&name));
        let flag = self.flag.iter().any(|o| o.starts_with(&name));
        match (value, flag) {
            (true, false) => Takes::Value,
            (false, true) => Takes::Flag,
            // Ambiguous or unknown: the program refuses to run, but reading
            // both ways costs nothing and does not depend on that.
            _ => Takes::Unsure,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const XARGS: LongOptions = LongOptions {
        value: &["arg-file", "max-procs", "max-args"],
        flag: &["null", "max-lines", "verbose"],
        complete: true,
        ignore_case: false,
    };

    #[test]
    fn exact_names_and_unambiguous_prefixes_read_as_the_option() {
        assert_eq!(XARGS.takes("max-procs"), Takes::Value);
        assert_eq!(XARGS.takes("max-p"), Takes::Value);
        assert_eq!(XARGS.takes("arg"), Takes::Value);
        assert_eq!(XARGS.takes("nu"), Takes::Flag);
        assert_eq!(XARGS.takes("max-l"), Takes::Flag);
    }

    #[test]
    fn ambiguous_unknown_and_unlisted_options_are_unsure() {
        // `max-` prefixes value and flag options alike.
        assert_eq!(XARGS.takes("max-"), Takes::Unsure);
        assert_eq!(XARGS.takes("frobnicate"), Takes::Unsure);
        let partial = LongOptions {
            complete: false,
            ..XARGS
        };
        assert_eq!(partial.takes("max-p"), Takes::Unsure);
        assert_eq!(partial.takes("max-procs"), Takes::Value);
    }

    #[test]
    fn getopt_long_in_perl_ignores_case() {
        let parallel = LongOptions {
            value: &["jobs"],
            flag: &["keep-order"],
            complete: false,
            ignore_case: true,
        };
        assert_eq!(parallel.takes("JOBS"), Takes::Value);
        assert_eq!(parallel.takes("Keep-Order"), Takes::Flag);
    }
}
