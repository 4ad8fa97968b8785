//! Flag and operand helpers for [`SimpleCommand`].
//!
//! Options are read GNU-style (bundles `-rn`, attached values `-n50`,
//! `--long=x`, `--` ends options, options may follow operands). Knowing
//! which flags take a value matters (in `grep -e -n f`, `-n` is the
//! pattern), so a small table covers the programs agents run most; for any
//! other program every flag is taken to be a boolean.

use super::SimpleCommand;
use super::wrap::is_assignment;

/// What the operands of a program are, for [`SimpleCommand::file_args`].
#[derive(Clone, Copy)]
enum Role {
    /// Operands may be anything: keep those that look like paths.
    Plain,
    /// Every operand is a file or directory (`cat`, `tail`, `ls`).
    Files,
    /// The first operand is a pattern/script/mode unless one of these flags
    /// supplies it (`grep -e`, `sed -f`, `awk -f`); the rest are files.
    Pattern(&'static [u8], &'static [&'static str]),
    /// Operands are never files (`echo`, `kill`, `systemctl`).
    NoFiles,
    /// `find ROOTS… EXPR`: the roots.
    Find,
    /// `git SUB …`: after `--` paths; otherwise path-looking operands after
    /// the subcommand.
    Git,
}

struct Spec {
    /// Short flags that take a value (attached or the next word).
    short: &'static [u8],
    /// Long flags (without `--`) that take a value (`--x=v` or `--x v`).
    long: &'static [&'static str],
    /// Long flags that take two values (`jq --arg name value`).
    long2: &'static [&'static str],
    /// `-name` is one long option (find, go).
    single_dash_long: bool,
    /// `-50` means `-n 50` (head, tail).
    numeric_n: bool,
    /// `+G`, `+100` are options (less, vim).
    plus_opts: bool,
    role: Role,
}

const fn spec(short: &'static [u8], long: &'static [&'static str], role: Role) -> Spec {
    Spec { short, long, long2: &[], single_dash_long: false, numeric_n: false, plus_opts: false, role }
}

const PLAIN: Spec = spec(b"", &[], Role::Plain);
const FILES: Spec = spec(b"", &[], Role::Files);
const NOFILES: Spec = spec(b"", &[], Role::NoFiles);

const GREP: Spec = spec(
    b"efABCmdD",
    &[
        "regexp",
        "file",
        "after-context",
        "before-context",
        "context",
        "max-count",
        "include",
        "exclude",
        "exclude-dir",
        "exclude-from",
        "label",
        "binary-files",
        "devices",
        "directories",
        "group-separator",
    ],
    Role::Pattern(b"ef", &["regexp", "file"]),
);
const RG: Spec = spec(
    b"efABCmgtTjMrEd",
    &[
        "regexp",
        "file",
        "glob",
        "iglob",
        "type",
        "type-not",
        "type-add",
        "max-count",
        "context",
        "after-context",
        "before-context",
        "replace",
        "threads",
        "max-depth",
        "max-filesize",
        "encoding",
        "sort",
        "sortr",
        "colors",
        "pre",
        "pre-glob",
        "path-separator",
        "max-columns",
        "context-separator",
        "engine",
        "ignore-file",
    ],
    Role::Pattern(b"ef", &["regexp", "file"]),
);
const AG: Spec = spec(b"ABCGgm", &["ignore", "file-search-regex"], Role::Pattern(b"", &[]));
const SED: Spec = spec(b"efl", &["expression", "file", "line-length"], Role::Pattern(b"ef", &["expression", "file"]));
const AWK: Spec = spec(b"fvF", &["file", "assign", "field-separator"], Role::Pattern(b"f", &["file"]));
const JQ: Spec = Spec {
    long2: &["arg", "argjson", "slurpfile", "rawfile"],
    ..spec(b"fL", &["from-file", "indent"], Role::Pattern(b"f", &["from-file"]))
};
const HEAD: Spec = Spec { numeric_n: true, ..spec(b"nc", &["lines", "bytes"], Role::Files) };
const TAIL: Spec = Spec {
    numeric_n: true,
    ..spec(b"ncs", &["lines", "bytes", "pid", "sleep-interval", "max-unchanged-stats"], Role::Files)
};
const LESS: Spec = Spec { plus_opts: true, ..spec(b"bhjkoOpPtTxyz", &["pattern", "tag", "log-file"], Role::Files) };
const VIM: Spec = Spec { plus_opts: true, ..spec(b"cSuUTiwW", &["cmd"], Role::Files) };
const LS: Spec = spec(
    b"IwT",
    &["ignore", "hide", "width", "tabsize", "format", "sort", "time-style", "quoting-style", "block-size"],
    Role::Files,
);
const DU: Spec = spec(b"dBtX", &["max-depth", "block-size", "threshold", "exclude", "exclude-from"], Role::Files);
const CP: Spec = spec(b"tS", &["target-directory", "suffix"], Role::Files);
const MKDIR: Spec = spec(b"m", &["mode"], Role::Files);
const TOUCH: Spec = spec(b"dtr", &["date", "reference"], Role::Files);
const CHMOD: Spec = spec(b"", &["reference"], Role::Pattern(b"", &["reference"]));
const SORT: Spec = spec(
    b"ktoST",
    &["key", "field-separator", "output", "buffer-size", "temporary-directory", "parallel", "files0-from"],
    Role::Files,
);
const UNIQ: Spec = spec(b"fsw", &["skip-fields", "skip-chars", "check-chars"], Role::Files);
const CUT: Spec = spec(b"dfcb", &["delimiter", "fields", "characters", "bytes", "output-delimiter"], Role::Files);
const DIFF: Spec = spec(
    b"UCIxXL",
    &["unified", "context", "ignore-matching-lines", "exclude", "exclude-from", "label", "from-file", "to-file"],
    Role::Files,
);
const XXD: Spec = spec(b"lscgo", &["len", "seek", "cols", "groupsize"], Role::Files);
const FIND: Spec = Spec {
    single_dash_long: true,
    ..spec(
        b"",
        &[
            "name",
            "iname",
            "path",
            "ipath",
            "type",
            "xtype",
            "maxdepth",
            "mindepth",
            "newer",
            "mtime",
            "mmin",
            "atime",
            "amin",
            "ctime",
            "cmin",
            "size",
            "user",
            "group",
            "perm",
            "regex",
            "iregex",
            "printf",
            "fprintf",
            "wholename",
            "iwholename",
            "samefile",
            "uid",
            "gid",
        ],
        Role::Find,
    )
};
const GO: Spec = Spec {
    single_dash_long: true,
    ..spec(
        b"",
        &[
            "run",
            "bench",
            "count",
            "timeout",
            "tags",
            "o",
            "p",
            "coverprofile",
            "covermode",
            "cpu",
            "parallel",
            "ldflags",
            "gcflags",
            "mod",
            "benchtime",
            "skip",
            "fuzz",
            "fuzztime",
            "C",
        ],
        Role::Plain,
    )
};
const GIT: Spec = spec(
    b"CcmbBFSGe",
    &[
        "format",
        "pretty",
        "author",
        "committer",
        "since",
        "until",
        "after",
        "before",
        "grep",
        "message",
        "depth",
        "date",
        "output",
        "onto",
        "strategy",
        "git-dir",
        "work-tree",
        "diff-filter",
        "max-count",
        "skip",
        "reference",
        "template",
        "file",
    ],
    Role::Git,
);
const CURL: Spec = spec(
    b"oHdXuAeTwmxFbcKrEYyzCPQUDt",
    &[
        "output",
        "header",
        "data",
        "data-raw",
        "data-binary",
        "data-urlencode",
        "data-ascii",
        "request",
        "user",
        "user-agent",
        "referer",
        "upload-file",
        "write-out",
        "max-time",
        "connect-timeout",
        "proxy",
        "form",
        "form-string",
        "cookie",
        "cookie-jar",
        "config",
        "range",
        "cert",
        "key",
        "cacert",
        "retry",
        "retry-delay",
        "retry-max-time",
        "resolve",
        "json",
        "url",
        "dump-header",
        "limit-rate",
        "max-filesize",
        "noproxy",
        "unix-socket",
        "interface",
        "output-dir",
        "oauth2-bearer",
    ],
    Role::Plain,
);
const WGET: Spec = spec(
    b"OoPtTUeaiARDlQw",
    &[
        "output-document",
        "output-file",
        "directory-prefix",
        "tries",
        "timeout",
        "user-agent",
        "execute",
        "append-output",
        "input-file",
        "accept",
        "reject",
        "domains",
        "level",
        "quota",
        "wait",
        "header",
        "post-data",
        "post-file",
        "user",
        "password",
        "load-cookies",
        "save-cookies",
        "limit-rate",
        "referer",
        "body-data",
        "method",
        "read-timeout",
        "connect-timeout",
    ],
    Role::Plain,
);
const TAR: Spec = spec(
    b"fCTXbgLVKNHI",
    &[
        "file",
        "directory",
        "files-from",
        "exclude-from",
        "exclude",
        "blocking-factor",
        "listed-incremental",
        "label",
        "newer",
        "format",
        "use-compress-program",
        "transform",
        "owner",
        "group",
        "mode",
        "mtime",
        "strip-components",
        "suffix",
        "sort",
        "to-command",
    ],
    Role::Plain,
);
const RSYNC: Spec = spec(
    b"eBfT",
    &[
        "rsh",
        "exclude",
        "include",
        "filter",
        "exclude-from",
        "include-from",
        "files-from",
        "partial-dir",
        "temp-dir",
        "log-file",
        "password-file",
        "port",
        "bwlimit",
        "timeout",
        "backup-dir",
        "suffix",
        "chmod",
        "chown",
        "rsync-path",
        "max-size",
        "min-size",
        "link-dest",
        "out-format",
    ],
    Role::Plain,
);
const SCP: Spec = spec(b"iPoFlScJ", &[], Role::Plain);
const SSH: Spec = spec(super::wrap::SSH_VALUE_FLAGS, &[], Role::NoFiles);
const JOURNALCTL: Spec = spec(
    b"utpnSUoDMFcg",
    &[
        "unit",
        "user-unit",
        "identifier",
        "priority",
        "lines",
        "since",
        "until",
        "output",
        "directory",
        "machine",
        "field",
        "cursor",
        "grep",
        "after-cursor",
        "file",
        "root",
        "namespace",
        "facility",
        "output-fields",
        "vacuum-size",
        "vacuum-time",
    ],
    Role::Plain,
);
const MAKE: Spec = spec(
    b"CfoWIjl",
    &[
        "directory",
        "file",
        "makefile",
        "old-file",
        "new-file",
        "what-if",
        "include-dir",
        "jobs",
        "load-average",
        "eval",
    ],
    Role::Plain,
);
const CARGO: Spec = spec(
    b"pjFZ",
    &[
        "package",
        "jobs",
        "features",
        "bin",
        "test",
        "example",
        "bench",
        "manifest-path",
        "target",
        "target-dir",
        "message-format",
        "config",
        "color",
        "profile",
        "exclude",
    ],
    Role::Plain,
);
const PYTEST: Spec = spec(
    b"kmnpcoW",
    &[
        "maxfail",
        "tb",
        "deselect",
        "ignore",
        "ignore-glob",
        "rootdir",
        "basetemp",
        "durations",
        "junitxml",
        "junit-xml",
        "log-level",
        "log-file",
        "cov",
        "cov-report",
        "timeout",
        "import-mode",
        "confcutdir",
        "override-ini",
        "capture",
    ],
    Role::Plain,
);
const PYTHON: Spec = spec(b"mcWX", &[], Role::Plain);
const NODE: Spec = spec(b"epr", &["eval", "print", "require", "import", "loader", "input-type"], Role::Plain);
const PERL: Spec = spec(b"eEIM", &[], Role::Plain);
const RUBY: Spec = spec(b"eIr", &[], Role::Plain);
const PIP: Spec = spec(
    b"rceit",
    &[
        "requirement",
        "constraint",
        "editable",
        "index-url",
        "extra-index-url",
        "target",
        "prefix",
        "root",
        "find-links",
        "python-version",
        "platform",
        "cache-dir",
        "log",
        "proxy",
        "timeout",
        "retries",
        "src",
    ],
    Role::Plain,
);
const NVIDIA_SMI: Spec =
    spec(b"ilf", &["id", "loop", "filename", "query-gpu", "query-compute-apps", "format", "loop-ms"], Role::Plain);
const PSQL: Spec = spec(
    b"cdUhpfvoPLTFR",
    &[
        "command",
        "dbname",
        "username",
        "host",
        "port",
        "file",
        "variable",
        "set",
        "output",
        "pset",
        "log-file",
        "field-separator",
        "record-separator",
    ],
    Role::Plain,
);
const MYSQL: Spec = spec(b"euPhDS", &["execute", "user", "port", "host", "database", "socket"], Role::Plain);
const DOCKER: Spec = spec(
    b"epvuw",
    &[
        "env",
        "publish",
        "volume",
        "user",
        "workdir",
        "name",
        "network",
        "entrypoint",
        "label",
        "mount",
        "gpus",
        "shm-size",
        "memory",
        "cpus",
        "tag",
        "file",
        "format",
        "filter",
        "env-file",
        "platform",
        "build-arg",
        "target",
        "runtime",
        "device",
        "ipc",
        "restart",
        "hostname",
        "add-host",
        "tail",
        "since",
        "until",
    ],
    Role::Plain,
);
const KUBECTL: Spec = spec(
    b"nfclo",
    &[
        "namespace",
        "filename",
        "container",
        "selector",
        "output",
        "context",
        "kubeconfig",
        "tail",
        "since",
        "field-selector",
        "template",
        "image",
        "replicas",
        "sort-by",
    ],
    Role::NoFiles,
);
const PGREP: Spec = spec(b"ugPstUGFd", &["signal", "parent", "session", "terminal"], Role::NoFiles);
const KILL: Spec = spec(b"sn", &["signal"], Role::NoFiles);
const PS: Spec =
    spec(b"opuUCtgG", &["format", "pid", "ppid", "user", "sort", "cols", "columns", "rows"], Role::NoFiles);
const STRACE: Spec = spec(b"opesuEPa", &["output", "trace"], Role::Plain);

fn spec_for(name: &str) -> &'static Spec {
    match name {
        "grep" | "egrep" | "fgrep" | "zgrep" | "zegrep" | "zfgrep" => &GREP,
        "rg" => &RG,
        "ag" | "ack" | "ack-grep" => &AG,
        "sed" | "gsed" => &SED,
        "awk" | "gawk" | "mawk" | "nawk" => &AWK,
        "jq" | "yq" => &JQ,
        "head" => &HEAD,
        "tail" => &TAIL,
        "less" | "more" | "most" => &LESS,
        "vim" | "vi" | "nvim" | "view" => &VIM,
        "ls" | "tree" => &LS,
        "du" => &DU,
        "cp" | "mv" | "ln" | "install" => &CP,
        "mkdir" => &MKDIR,
        "touch" => &TOUCH,
        "chmod" | "chown" | "chgrp" => &CHMOD,
        "sort" => &SORT,
        "uniq" => &UNIQ,
        "cut" => &CUT,
        "diff" | "colordiff" => &DIFF,
        "xxd" | "hexdump" | "od" => &XXD,
        "find" => &FIND,
        "go" => &GO,
        "git" => &GIT,
        "curl" => &CURL,
        "wget" => &WGET,
        "tar" => &TAR,
        "rsync" => &RSYNC,
        "scp" => &SCP,
        "ssh" => &SSH,
        "journalctl" => &JOURNALCTL,
        "make" | "gmake" => &MAKE,
        "cargo" => &CARGO,
        "pytest" | "py.test" => &PYTEST,
        "python" | "python2" | "python3" | "pypy" | "pypy3" => &PYTHON,
        n if n.starts_with("python3.") => &PYTHON,
        "node" | "deno" | "bun" => &NODE,
        "perl" => &PERL,
        "ruby" => &RUBY,
        "pip" | "pip3" => &PIP,
        "nvidia-smi" => &NVIDIA_SMI,
        "psql" => &PSQL,
        "mysql" => &MYSQL,
        "docker" | "podman" => &DOCKER,
        "kubectl" | "oc" => &KUBECTL,
        "pgrep" | "pkill" => &PGREP,
        "kill" | "killall" => &KILL,
        "ps" => &PS,
        "strace" | "ltrace" => &STRACE,
        "cat" | "tac" | "nl" | "wc" | "tee" | "rm" | "rmdir" | "stat" | "file" | "cmp" | "comm" | "paste" | "join"
        | "split" | "strings" | "md5sum" | "sha1sum" | "sha256sum" | "sha512sum" | "b2sum" | "cksum" | "base64"
        | "readlink" | "realpath" | "dirname" | "basename" | "source" | "." | "nano" | "emacs" | "code"
        | "truncate" | "shred" | "unlink" | "gzip" | "gunzip" | "zcat" | "bzcat" | "xzcat" | "zstdcat" | "bzip2"
        | "bunzip2" | "xz" | "unxz" | "zstd" | "cd" | "pushd" | "bat" | "batcat" | "dos2unix" => &FILES,
        "echo" | "printf" | "export" | "sleep" | "seq" | "true" | "false" | "read" | "set" | "unset" | "shift"
        | "local" | "declare" | "typeset" | "alias" | "exit" | "return" | "break" | "continue" | "wait" | "jobs"
        | "trap" | "ulimit" | "umask" | "systemctl" | "service" | "tmux" | "screen" | "tr" | "date" | "history"
        | "which" | "type" | "whoami" | "hostname" | "uname" | "nproc" | "free" | "uptime" | "id" | "yes" => &NOFILES,
        _ => &PLAIN,
    }
}

/// One classified argument.
enum Item<'a> {
    Flag {
        short: Option<char>,
        long: Option<&'a str>,
        /// The value this flag consumed (known to take one).
        value: Option<&'a str>,
        /// For a flag not known to take a value and last in its bundle: the
        /// following word, in case the caller knows better.
        next: Option<&'a str>,
    },
    Operand(&'a str),
    /// `--`
    EndOfOptions,
}

/// Walk `args` classifying each; `f` returns false to stop early.
fn walk<'a>(args: &'a [String], spec: &Spec, mut f: impl FnMut(Item<'a>) -> bool) {
    let mut i = 0;
    let mut opts_done = false;
    while let Some(a) = args.get(i) {
        i += 1;
        let a = a.as_str();
        let is_plus = spec.plus_opts && a.starts_with('+') && a.len() > 1;
        if opts_done || a == "-" || !(a.starts_with('-') || is_plus) {
            if !f(Item::Operand(a)) {
                return;
            }
            continue;
        }
        if a == "--" {
            opts_done = true;
            if !f(Item::EndOfOptions) {
                return;
            }
            continue;
        }
        let next = args.get(i).map(String::as_str);
        if is_plus {
            let item = Item::Flag { short: a[1..].chars().next(), long: None, value: Some(&a[1..]), next: None };
            if !f(item) {
                return;
            }
            continue;
        }
        if let Some(l) = a.strip_prefix("--") {
            let (name, value, next) = match l.split_once('=') {
                Some((n, v)) => (n, Some(v), None),
                None if spec.long2.contains(&l) => {
                    i += 2;
                    (l, next, None)
                }
                None if spec.long.contains(&l) => {
                    i += 1;
                    (l, next, None)
                }
                None => (l, None, next),
            };
            let item = Item::Flag { short: None, long: Some(name), value, next };
            if !f(item) {
                return;
            }
            continue;
        }
        let body = &a[1..];
        if spec.numeric_n && body.bytes().all(|b| b.is_ascii_digit()) {
            let item = Item::Flag { short: Some('n'), long: None, value: Some(body), next: None };
            if !f(item) {
                return;
            }
            continue;
        }
        if spec.single_dash_long {
            let mut cs = body.chars();
            let short = match (cs.next(), cs.next()) {
                (Some(c), None) => Some(c),
                _ => None,
            };
            let takes = spec.long.contains(&body);
            if takes {
                i += 1;
            }
            let item = Item::Flag {
                short,
                long: Some(body),
                value: if takes { next } else { None },
                next: if takes { None } else { next },
            };
            if !f(item) {
                return;
            }
            continue;
        }
        for (p, ch) in body.char_indices() {
            let rest = &body[p + ch.len_utf8()..];
            let takes = ch.is_ascii() && spec.short.contains(&(ch as u8));
            let item = if takes {
                let value = if rest.is_empty() {
                    i += 1;
                    next
                } else {
                    Some(rest)
                };
                Item::Flag { short: Some(ch), long: None, value, next: None }
            } else {
                Item::Flag { short: Some(ch), long: None, value: None, next: if rest.is_empty() { next } else { None } }
            };
            if !f(item) {
                return;
            }
            if takes {
                break;
            }
        }
    }
}

fn long_matches(have: Option<&str>, want: Option<&str>) -> bool {
    match (have, want) {
        (Some(h), Some(w)) => h == w.trim_start_matches('-'),
        _ => false,
    }
}

/// Looks like a filesystem path: contains `/`, or ends in `.ext`, or is
/// `.`/`..`/`~`; and is not a URL, `host:port/…`, `NAME=value`, a number,
/// an option, or text with whitespace.
pub(super) fn looks_like_path(a: &str) -> bool {
    if a.is_empty()
        || a.len() > 4096
        || a.starts_with('-')
        || a.bytes().any(|b| b.is_ascii_whitespace())
        || a.contains("://")
        || is_assignment(a)
    {
        return false;
    }
    if matches!(a, "." | ".." | "~") {
        return true;
    }
    let head = a.split('/').next().unwrap_or(a);
    if let Some((_, port)) = head.rsplit_once(':')
        && !port.is_empty()
        && port.bytes().all(|b| b.is_ascii_digit())
    {
        return false; // localhost:30000/health
    }
    if a.contains('/') {
        return true;
    }
    match a.rfind('.') {
        Some(dot) => {
            let ext = &a[dot + 1..];
            !ext.is_empty()
                && ext.len() <= 10
                && ext.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && ext.bytes().any(|b| b.is_ascii_alphabetic())
        }
        None => false,
    }
}

impl SimpleCommand {
    /// Basename of the program: `/usr/bin/grep` -> `grep`.
    pub fn name(&self) -> &str {
        self.program.rsplit('/').next().unwrap_or(&self.program)
    }

    /// Whether a flag is given, as `-n`, inside a bundle (`-rn`), as
    /// `--long` or `--long=x`. `long` may be given with or without dashes.
    /// Words after `--` are never flags.
    pub fn has_flag(&self, short: Option<char>, long: Option<&str>) -> bool {
        let mut found = false;
        walk(&self.args, spec_for(self.name()), |item| {
            if let Item::Flag { short: s, long: l, .. } = item {
                found = (short.is_some() && s == short) || long_matches(l, long);
            }
            !found
        });
        found
    }

    /// The value of a flag: `-n 50`, `-n50`, `--lines=50`, `--lines 50`,
    /// `tail -50` (as `-n`), `less +G` (as `+`). The last occurrence wins.
    /// For a flag this module does not know to take a value, the following
    /// word is returned (the caller asking implies it takes one).
    pub fn flag_value(&self, short: Option<char>, long: Option<&str>) -> Option<&str> {
        let mut found = None;
        walk(&self.args, spec_for(self.name()), |item| {
            if let Item::Flag { short: s, long: l, value, next } = item
                && ((short.is_some() && s == short) || long_matches(l, long))
            {
                found = value.or(next.filter(|n| !n.starts_with('-') || n.len() == 1));
            }
            true
        });
        found
    }

    /// Operands: arguments that are neither flags nor flag values (best
    /// effort, from a table of value-taking flags of common programs).
    pub fn positionals(&self) -> Vec<&str> {
        let mut res = Vec::new();
        walk(&self.args, spec_for(self.name()), |item| {
            if let Item::Operand(a) = item {
                res.push(a);
            }
            true
        });
        res
    }

    /// Operands that are files or directories. For programs whose operands
    /// are all files (`cat`, `tail`, `ls`, and `grep`/`rg`/`sed`/`awk`/`jq`
    /// after their pattern or script operand, which is skipped unless given
    /// by `-e`/`-f`), every operand except `-`; `find`'s root paths; for
    /// `git`, paths after `--`; for other programs, operands that look like
    /// paths (contain `/` or end in `.ext`, and are not URLs, `host:port`,
    /// numbers or `NAME=value`). Flag values are not included.
    pub fn file_args(&self) -> Vec<&str> {
        let spec = spec_for(self.name());
        let keep = |a: &&str| !a.is_empty() && *a != "-" && !is_assignment(a);
        match spec.role {
            Role::NoFiles => Vec::new(),
            Role::Plain => self.positionals().into_iter().filter(|a| looks_like_path(a)).collect(),
            Role::Files => self.positionals().into_iter().filter(keep).collect(),
            Role::Pattern(short, long) => {
                let given = short.iter().any(|&c| self.has_flag(Some(c as char), None))
                    || long.iter().any(|l| self.has_flag(None, Some(l)))
                    || (self.name() == "rg" && self.has_flag(None, Some("files")));
                let skip = usize::from(!given);
                self.positionals().into_iter().skip(skip).filter(keep).collect()
            }
            Role::Find => self
                .args
                .iter()
                .map(String::as_str)
                .take_while(|a| !(a.starts_with('-') || *a == "(" || *a == "!"))
                .collect(),
            Role::Git => {
                let mut after_dd = Vec::new();
                let mut before = Vec::new();
                let mut dd = false;
                walk(&self.args, spec, |item| {
                    match item {
                        Item::EndOfOptions => dd = true,
                        Item::Operand(a) if dd => after_dd.push(a),
                        Item::Operand(a) => before.push(a),
                        Item::Flag { .. } => {}
                    }
                    true
                });
                if dd {
                    after_dd
                } else {
                    before
                        .into_iter()
                        .skip(1) // the subcommand
                        .filter(|a| looks_like_path(a))
                        .collect()
                }
            }
        }
    }
}
