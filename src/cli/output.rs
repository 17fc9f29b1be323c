//! Output macros for the commands. Output never panics: a closed pipe
//! (`policy check | head`) or a closed stderr just ends the output, which
//! is why these exist instead of `println!`.

macro_rules! outln { ($($t:tt)*) => {{ use std::io::Write as _; let _ = writeln!(std::io::stdout(), $($t)*); }} }
macro_rules! out { ($($t:tt)*) => {{ use std::io::Write as _; let _ = write!(std::io::stdout(), $($t)*); }} }
macro_rules! errln { ($($t:tt)*) => {{ use std::io::Write as _; let _ = writeln!(std::io::stderr(), $($t)*); }} }
macro_rules! err { ($($t:tt)*) => {{ use std::io::Write as _; let _ = write!(std::io::stderr(), $($t)*); }} }

pub(crate) use {err, errln, out, outln};
