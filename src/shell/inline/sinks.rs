//! The tables behind [`super::code`]: which calls run commands or code,
//! delete or move files, or reach code by computed names, per language.
//! Adding a library function that runs a command or deletes files means
//! adding its qualified name here.

use super::lexer::{Lang, Tok};

/// Names whose mere use means the code reaches things by computed names.
pub(super) fn reflective(lang: Lang, name: &str) -> bool {
    match lang {
        Lang::Python => matches!(
            name,
            "__builtins__"
                | "__dict__"
                | "__getattribute__"
                | "__subclasses__"
                | "__globals__"
                | "__code__"
                | "__class__"
                | "__mro__"
                | "__bases__"
                | "globals"
                | "locals"
                | "vars"
                | "ctypes"
                | "cffi"
                | "pickle"
                | "marshal"
                | "dill"
                | "cloudpickle"
                | "pty"
                | "posix"
                | "nt"
                | "builtins"
                | "__loader__"
                | "__spec__"
                | "setattr"
        ),
        Lang::JavaScript => matches!(
            name,
            "constructor"
                | "globalThis"
                | "global"
                | "Reflect"
                | "process.binding"
                | "__proto__"
                | "prototype"
                | "vm"
                | "Deno"
                | "WebAssembly"
        ),
        Lang::Ruby => matches!(
            name,
            "instance_variable_get"
                | "const_get"
                | "binding"
                | "ObjectSpace"
                | "Fiddle"
                | "DL"
                | "define_method"
                | "Marshal"
        ),
        Lang::Perl => matches!(name, "CORE::GLOBAL" | "DynaLoader" | "XSLoader" | "Inline"),
        Lang::Php => matches!(
            name,
            "create_function"
                | "ReflectionFunction"
                | "FFI"
                | "get_defined_functions"
                | "extract"
                | "parse_str"
                | "preg_replace_callback"
                | "array_map"
                | "array_filter"
                | "array_walk"
                | "usort"
                | "register_shutdown_function"
        ),
        Lang::Awk => false,
        // `_G["os"]["execute"]`, `debug.getregistry()`, C modules.
        Lang::Lua => matches!(
            name,
            "_G" | "_ENV" | "debug" | "getfenv" | "setfenv" | "rawget" | "package" | "ffi"
        ),
        // `get("system")`, `match.fun(x)`, `.Internal(...)`, C calls.
        Lang::R => matches!(
            name,
            "get"
                | "get0"
                | "mget"
                | "match.fun"
                | "getFromNamespace"
                | "getExportedValue"
                | ".Internal"
                | ".Primitive"
                | ".Call"
                | ".C"
                | ".External"
                | "dyn.load"
                | "environment"
                | "sys.function"
                | "body"
        ),
        // `getfield(Base, :run)`, `ccall`, `invokelatest(f, ...)`.
        Lang::Julia => matches!(
            name,
            "getfield"
                | "getproperty"
                | "ccall"
                | "cglobal"
                | "Libdl"
                | "invokelatest"
                | "Core.eval"
                | "Symbol"
        ),
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Sink {
    /// First argument: shell code (a list runs as words).
    Shell,
    /// A string is shell code, a list the words of a command (subprocess).
    ShellOrArgv,
    /// Every string argument is a word of the command.
    ArgvSpread,
    /// `(program, [args], {shell})`: node's execFile/spawn.
    ExecFile,
    /// `(path, argv)` or `(mode, path, arg0, arg1, ...)`: `os.exec*`, `os.spawn*`.
    ExecV,
    /// One argument is shell code; more are the words of a command.
    SystemList,
    /// Perl's `open` with a pipe mode.
    PerlOpen,
    /// More code of the same language.
    Code,
    /// `rm -r -f` (recursive) or `rm -f` (a file) of the path arguments;
    /// node's `recursive` option makes any delete recursive.
    Delete {
        recursive: bool,
    },
    RmDir,
    Move,
    /// A file write (`open(p, 'w')`, `fs.writeFileSync(p)`), reported as
    /// `tee -- PATH`: argument `path` is written; with `mode`, only when
    /// that argument (or a `mode`/`flags` option) is not a read-only mode.
    Write {
        path: usize,
        mode: Option<usize>,
    },
    /// A file read (`fs.readFileSync(p)`, `File.read(p)`), reported as
    /// `cat -- PATH` for argument `path`. An open for reading (`open(p)`)
    /// is a [`Sink::Write`] whose mode does not write.
    Read {
        path: usize,
    },
    /// A copy (`shutil.copy(src, dst)`), reported as `cp -- SRC DST`.
    Copy,
    /// A link (`os.symlink(target, link)`), reported as `ln -s -- TARGET LINK`.
    Link,
    /// A capability whose arguments are not followed.
    Opaque,
}

pub(super) fn sink(lang: Lang, name: &str) -> Option<Sink> {
    use Sink::*;
    let s = match lang {
        Lang::Python => match name {
            "os.system"
            | "os.popen"
            | "os.popen2"
            | "os.popen3"
            | "os.popen4"
            | "subprocess.getoutput"
            | "subprocess.getstatusoutput"
            | "commands.getoutput"
            | "commands.getstatusoutput"
            | "asyncio.create_subprocess_shell"
            | "platform.popen" => Shell,
            "subprocess.run"
            | "subprocess.call"
            | "subprocess.check_call"
            | "subprocess.check_output"
            | "subprocess.Popen"
            | "pty.spawn" => ShellOrArgv,
            "asyncio.create_subprocess_exec" => ArgvSpread,
            n if n.starts_with("os.exec")
                || n.starts_with("os.spawn")
                || n.starts_with("os.posix_spawn") =>
            {
                ExecV
            }
            "eval" | "exec" | "compile" | "builtins.eval" | "builtins.exec" => Code,
            "shutil.rmtree" => Delete { recursive: true },
            "os.remove" | "os.unlink" => Delete { recursive: false },
            "os.rmdir" | "os.removedirs" => RmDir,
            "os.rename" | "os.replace" | "os.renames" | "shutil.move" => Move,
            "open" | "io.open" | "codecs.open" | "builtins.open" => Write {
                path: 0,
                mode: Some(1),
            },
            "os.open" | "os.truncate" => Write {
                path: 0,
                mode: None,
            },
            "shutil.copy" | "shutil.copy2" | "shutil.copyfile" | "shutil.copytree" => Copy,
            "linecache.getlines" | "linecache.getline" | "fileinput.input" => Read { path: 0 },
            "os.symlink" | "os.link" => Link,
            "importlib.import_module"
            | "__import__"
            | "getattr"
            | "runpy.run_path"
            | "runpy.run_module"
            | "code.interact"
            | "os.fork"
            | "multiprocessing.Process" => return None,
            _ => return None,
        },
        Lang::JavaScript => {
            let name = name.replace(".promises.", ".");
            let name = name.strip_suffix(".sync").unwrap_or(&name).to_string();
            let (module, function) = name.rsplit_once('.').unwrap_or(("", &name));
            match (module, function) {
                ("child_process", "exec" | "execSync") | ("shelljs", "exec") | ("Bun", "$") => {
                    Shell
                }
                ("child_process", "execFile" | "execFileSync" | "spawn" | "spawnSync") => ExecFile,
                ("Bun", "spawn" | "spawnSync") => ShellOrArgv,
                ("", "eval" | "Function") | ("vm", _) => Code,
                ("fs" | "fs-extra" | "graceful-fs", "rm" | "rmSync") => Delete { recursive: false },
                ("fs" | "fs-extra" | "graceful-fs", "unlink" | "unlinkSync") => {
                    Delete { recursive: false }
                }
                ("fs-extra", "remove" | "removeSync" | "emptyDir" | "emptyDirSync")
                | ("", "rimraf")
                | ("rimraf", _)
                | ("del", _)
                | ("", "del" | "deleteSync" | "deleteAsync") => Delete { recursive: true },
                ("shelljs", "rm") => ArgvSpread,
                ("fs" | "fs-extra" | "graceful-fs", "rmdir" | "rmdirSync") => RmDir,
                (
                    "fs" | "fs-extra" | "graceful-fs",
                    "rename" | "renameSync" | "move" | "moveSync",
                ) => Move,
                (
                    "fs" | "fs-extra" | "graceful-fs",
                    "writeFile" | "writeFileSync" | "appendFile" | "appendFileSync"
                    | "createWriteStream" | "truncate" | "truncateSync" | "outputFile"
                    | "outputFileSync" | "writeJson" | "writeJsonSync" | "outputJson"
                    | "outputJsonSync",
                ) => Write {
                    path: 0,
                    mode: None,
                },
                (
                    "fs" | "fs-extra" | "graceful-fs",
                    "readFile" | "readFileSync" | "createReadStream" | "readJson" | "readJsonSync"
                    | "readJSON" | "readJSONSync",
                )
                | ("Bun", "file")
                | ("Deno", "readTextFile" | "readTextFileSync" | "readFile" | "readFileSync") => {
                    Read { path: 0 }
                }
                ("fs" | "fs-extra" | "graceful-fs", "open" | "openSync") => Write {
                    path: 0,
                    mode: Some(1),
                },
                (
                    "fs" | "fs-extra" | "graceful-fs",
                    "copyFile" | "copyFileSync" | "cp" | "cpSync" | "copy" | "copySync",
                ) => Copy,
                (
                    "fs" | "fs-extra" | "graceful-fs",
                    "symlink" | "symlinkSync" | "link" | "linkSync",
                ) => Link,
                ("process", "binding" | "dlopen") | ("Deno", _) => Opaque,
                _ => return None,
            }
        }
        Lang::Perl => {
            let short = name.rsplit('.').next().unwrap_or(name);
            match (name, short) {
                ("system" | "exec" | "CORE.system" | "CORE.exec", _) => SystemList,
                ("readpipe", _) => Shell,
                ("open" | "CORE.open", _) => PerlOpen,
                ("eval" | "evalbytes", _) => Code,
                (_, "rmtree" | "remove_tree") => Delete { recursive: true },
                ("unlink" | "CORE.unlink", _) => Delete { recursive: false },
                ("rmdir", _) => RmDir,
                ("rename" | "File.Copy.move" | "move", _) => Move,
                ("copy" | "File.Copy.copy" | "cp", _) => Copy,
                ("symlink" | "link", _) => Link,
                ("syscall", _) => Opaque,
                _ => return None,
            }
        }
        Lang::Ruby => {
            let (module, function) = name.rsplit_once('.').unwrap_or(("", name));
            match (module, function) {
                ("" | "Kernel" | "Process", "system" | "exec" | "spawn") => SystemList,
                ("IO" | "Kernel", "popen") | ("", "open") => Shell,
                ("Open3", _) => SystemList,
                (
                    "" | "Kernel",
                    "eval" | "instance_eval" | "class_eval" | "module_eval" | "instance_exec",
                ) => Code,
                (
                    "FileUtils" | "",
                    "rm_rf"
                    | "rm_r"
                    | "remove_dir"
                    | "remove_entry"
                    | "remove_entry_secure"
                    | "rmtree",
                ) => Delete { recursive: true },
                ("FileUtils", "rm" | "rm_f" | "remove" | "remove_file")
                | ("File", "delete" | "unlink") => Delete { recursive: false },
                ("Dir" | "FileUtils", "rmdir" | "delete" | "unlink") => RmDir,
                ("FileUtils" | "File", "mv" | "move" | "rename") => Move,
                ("File" | "IO", "read" | "binread" | "readlines" | "foreach") => Read { path: 0 },
                ("File" | "IO", "write" | "binwrite") => Write {
                    path: 0,
                    mode: None,
                },
                ("File", "open" | "new") => Write {
                    path: 0,
                    mode: Some(1),
                },
                ("FileUtils", "cp" | "copy" | "cp_r" | "install" | "copy_file") => Copy,
                ("FileUtils" | "File", "ln_s" | "ln_sf" | "symlink" | "ln" | "link") => Link,
                ("Kernel" | "", "syscall") => Opaque,
                _ => return None,
            }
        }
        Lang::Php => match name {
            "system" | "exec" | "shell_exec" | "passthru" | "popen" => Shell,
            "proc_open" => ShellOrArgv,
            "pcntl_exec" => ExecFile,
            "eval" | "assert" => Code,
            "unlink" => Delete { recursive: false },
            "rmdir" => RmDir,
            "rename" => Move,
            "file_get_contents" | "file" | "readfile" | "parse_ini_file" | "highlight_file"
            | "show_source" => Read { path: 0 },
            "file_put_contents" => Write {
                path: 0,
                mode: None,
            },
            "fopen" => Write {
                path: 0,
                mode: Some(1),
            },
            "copy" => Copy,
            "symlink" | "link" => Link,
            _ => return None,
        },
        Lang::Awk => match name {
            "system" => Shell,
            _ => return None,
        },
        Lang::Lua => match name {
            "os.execute" | "io.popen" => Shell,
            "load" | "loadstring" => Code,
            "os.remove" => Delete { recursive: false },
            "os.rename" => Move,
            "io.lines" => Read { path: 0 },
            "io.open" => Write {
                path: 0,
                mode: Some(1),
            },
            "io.output" => Write {
                path: 0,
                mode: None,
            },
            "package.loadlib" => Opaque,
            _ => return None,
        },
        Lang::R => match name {
            "system" | "shell" | "pipe" => Shell,
            // `system2("rm", c("-rf", "~"))`, `processx::run("rm", ...)`.
            "system2"
            | "processx.run"
            | "processx.process$new"
            | "sys.exec_wait"
            | "sys.exec_internal" => ExecFile,
            "parse" | "str2lang" | "str2expression" => Code,
            "unlink" => Delete { recursive: false },
            "file.remove" => Delete { recursive: false },
            "file.rename" => Move,
            "readLines" | "readRDS" | "read.csv" | "read.table" | "read.delim" | "scan"
            | "readChar" | "readBin" | "readRenviron" | "source" => Read { path: 0 },
            "file.copy" => Copy,
            "file.symlink" | "file.link" => Link,
            "writeLines" | "saveRDS" | "write.csv" | "write.table" => Write {
                path: 1,
                mode: None,
            },
            _ => return None,
        },
        Lang::Julia => {
            let short = name
                .strip_prefix("Base.Filesystem.")
                .or_else(|| name.strip_prefix("Base."))
                .unwrap_or(name);
            match short {
                "Meta.parse" | "Meta.parseall" => Code,
                "include_string" => Opaque,
                "rm" => Delete { recursive: false },
                "mv" => Move,
                "cp" => Copy,
                "symlink" | "hardlink" => Link,
                "read" | "readlines" | "readchomp" | "eachline" => Read { path: 0 },
                "write" => Write {
                    path: 0,
                    mode: None,
                },
                "open" => Write {
                    path: 0,
                    mode: Some(1),
                },
                "ccall" => Opaque,
                _ => return None,
            }
        }
    };
    Some(s)
}

/// Method names that, called on something not known statically, may run
/// a command or delete files: the receiver could be the module.
pub(super) fn sensitive_method(lang: Lang, name: &str) -> bool {
    match lang {
        Lang::Python => matches!(
            name,
            "system"
                | "popen"
                | "rmtree"
                | "check_output"
                | "check_call"
                | "getoutput"
                | "Popen"
                | "execv"
                | "execvp"
                | "execve"
                | "execvpe"
                | "execl"
                | "execlp"
                | "spawnv"
                | "spawnvp"
                | "spawnl"
                | "spawnlp"
                | "posix_spawn"
                | "posix_spawnp"
                | "create_subprocess_shell"
                | "create_subprocess_exec"
        ),
        Lang::JavaScript => matches!(
            name,
            "execSync"
                | "spawnSync"
                | "execFileSync"
                | "execFile"
                | "rmSync"
                | "rmdirSync"
                | "unlinkSync"
                | "removeSync"
        ),
        Lang::Ruby => matches!(
            name,
            "rm_rf" | "rm_r" | "system" | "spawn" | "popen" | "capture2" | "capture3" | "popen3"
        ),
        _ => false,
    }
}

/// Keywords that only introduce the name after them.
pub(super) fn declarator(lang: Lang, name: &str) -> bool {
    match lang {
        Lang::JavaScript => matches!(
            name,
            "const" | "let" | "var" | "await" | "new" | "return" | "void" | "typeof"
        ),
        Lang::Perl => matches!(name, "my" | "our" | "local" | "return"),
        Lang::Python => matches!(name, "await" | "return" | "not" | "lambda" | "yield"),
        Lang::Ruby => matches!(name, "return"),
        Lang::Php => matches!(name, "return" | "new" | "echo" | "print"),
        Lang::Awk => false,
        Lang::Lua => matches!(name, "local" | "return"),
        Lang::R => false,
        Lang::Julia => matches!(name, "return" | "local" | "global" | "const"),
    }
}

/// A value an option may take that plainly means "off" (a number may be
/// `1`: it counts as on).
pub(super) fn is_false(tok: Option<&Tok>) -> bool {
    matches!(tok, Some(Tok::Ident(v)) if matches!(v.as_str(), "false" | "False" | "FALSE" | "nil" | "null" | "None" | "undefined"))
}
