#!/usr/bin/env python3
"""Extract gitleaks' own true-positive test samples for the rules we vendor, as
templates: tests/data/gitleaks-samples.toml.

Usage: scripts/gitleaks-samples.py GITLEAKS_CHECKOUT > tests/data/gitleaks-samples.toml

gitleaks (https://github.com/gitleaks/gitleaks, MIT) tests each rule in
cmd/generate/config/rules/*.go with `tps` built from `secrets.NewSecret(REGEX)` (a
random string matching REGEX) embedded by `GenerateSampleSecret(s)(IDENT, SECRET)` in
config-file shapes. We keep the recipe, not a secret: each sample is a list of parts,
`{lit = "text"}` or `{re = "regex"}`; tests/redaction.rs fills the regex parts with
fixed-seed random strings, so no key, real or fake, is committed (recipes that are
fixed strings only are left out).
"""
import json
import re
import subprocess
import sys

repo = sys.argv[1]
KEEP = set(re.findall(r'^id = "([^"]+)"', open("src/redact/gitleaks.toml").read(), re.M))

UTILS = {
    "Numeric": "[0-9]{%s}", "Hex": "[a-f0-9]{%s}", "AlphaNumeric": "[a-z0-9]{%s}",
    "AlphaNumericExtendedShort": "[a-z0-9_-]{%s}", "AlphaNumericExtended": r"[a-z0-9=_\-]{%s}",
    "AlphaNumericExtendedLong": r"[a-z0-9\/=_\+\-]{%s}",
}
# The shapes GenerateSampleSecrets writes (a few of its list) and GenerateSampleSecret's.
MANY = ['{i}_token: "{s}"', '{I}_TOKEN={s}', '{{"{i}_token": "{s}"}}', "{i}Token := `{s}`"]
ONE = '{i}_api_token = "{s}"'


class GiveUp(Exception):
    pass


TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(`[^`]*`)|([A-Za-z_][\w.]*)|(\()|(\))|(,)|(\+)|(\{)|(\})|(\[\]string))', re.S)


def tokens(s):
    out, i = [], 0
    while i < len(s):
        m = TOKEN.match(s, i)
        if not m or m.end() == i:
            if s[i:].strip() == "":
                break
            raise GiveUp(s[i:i + 40])
        out.append(next((g, k) for k, g in enumerate(m.groups()) if g is not None))
        i = m.end()
    return out


class Parser:
    def __init__(self, toks, env):
        self.t, self.i, self.env = toks, 0, env

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None)

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def expr(self, regex=False):
        parts = self.atom(regex)
        while self.peek()[0] == "+":
            self.take()
            parts = parts + self.atom(regex)
        return parts

    def args(self, regex=False):
        out = []
        assert self.take()[0] == "("
        while self.peek()[0] != ")":
            out.append(self.expr(regex))
            if self.peek()[0] == ",":
                self.take()
        self.take()
        return out

    def atom(self, regex):
        tok, kind = self.take()
        if kind == 0:  # "..."
            return [("lit", json.loads(tok.replace("\\'", "'")))]
        if kind == 1:  # `...`
            return [("lit", tok[1:-1])]
        if kind == 2:
            name = tok
            if name == "secrets.NewSecret":
                (inner,) = self.args(regex=True)
                if any(k != "lit" for k, _ in inner):
                    raise GiveUp("nested secret")
                return [("re", "".join(v for _, v in inner))]
            if name.startswith("utils.") and name[6:] in UTILS:
                (n,) = self.args()
                return [("lit", UTILS[name[6:]] % n[0][1])]
            if name == "utils.Hex8_4_4_4_12":
                self.args()
                return [("lit", "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")]
            if name in ("utils.GenerateSampleSecret", "utils.GenerateSampleSecrets"):
                ident, secret = self.args()
                return [("sample", (name.endswith("s"), ident[0][1], secret))]
            if name in self.env:
                return self.env[name]
            raise GiveUp(name)
        raise GiveUp(str(tok))


def samples_of(body):
    env, out = {}, []
    for m in re.finditer(r'^\s*(\w+)\s*:?=\s*(.+?)$', body, re.M):
        name, rhs = m.group(1), m.group(2)
        if name in ("tps", "fps", "r"):
            continue
        try:
            env[name] = Parser(tokens(rhs), env).expr()
        except (GiveUp, AssertionError, json.JSONDecodeError):
            pass
    for m in re.finditer(r'tps\s*:?=\s*', body):
        try:
            out.extend(tps_statement(body, m.end(), env))
        except (GiveUp, AssertionError, json.JSONDecodeError, IndexError, ValueError):
            continue
    return out


def tps_statement(body, start, env):
    out = []
    if True:
        depth, i = 0, start
        while i < len(body):
            c = body[i]
            if c in "({":
                depth += 1
            elif c in ")}":
                depth -= 1
            elif c == "\n" and depth == 0:
                break
            elif c == "`":
                i = body.index("`", i + 1)
            elif c == '"':
                i += 1
                while body[i] != '"':
                    i += 2 if body[i] == "\\" else 1
            i += 1
        text = body[start:i].strip()
        text = re.sub(r"//[^\n`\"]*\n", "\n", text)
        if text.startswith("append(tps,"):
            text = text[len("append(tps,"):-1]
            if text.rstrip().endswith("..."):
                text = text.rstrip()[:-3]
        elif text.startswith("[]string{"):
            text = text[len("[]string{"):-1]
        p = Parser(tokens(text), env)
        while p.peek()[0] is not None:
            out.append(p.expr())
            if p.peek()[0] == ",":
                p.take()
    return out


def expand(parts):
    """A parsed tps element → sample templates (lists of lit/re parts)."""
    if len(parts) == 1 and parts[0][0] == "sample":
        many, ident, secret = parts[0][1]
        shapes = MANY if many else [ONE]
        res = []
        for shape in shapes:
            pre, post = shape.replace("{i}", ident).replace("{I}", ident.upper()).split("{s}")
            pre, post = pre.replace("{{", "{").replace("}}", "}"), post.replace("{{", "{").replace("}}", "}")
            res.append([("lit", pre)] + secret + [("lit", post)])
        return res
    if any(k == "sample" for k, _ in parts):
        return []
    return [parts]


files = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD", "cmd/generate/config/rules/"],
                       capture_output=True, text=True, check=True).stdout.split()
commit = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
found = {}
for f in files:
    src = subprocess.run(["git", "-C", repo, "show", f"HEAD:{f}"], capture_output=True, text=True).stdout
    for fn in re.split(r"\nfunc ", src)[1:]:
        rid = re.search(r'RuleID:\s*"([^"]+)"', fn)
        if not rid or rid.group(1) not in KEEP:
            continue
        temps = [t for p in samples_of(fn) for t in expand(p)]
        # Only recipes with a random part: gitleaks' fixed example strings look like
        # keys and are not copied (tests/redaction.rs falls back to the rule's regex).
        temps = [t for t in temps if any(k == "re" for k, _ in t)]
        if temps:
            found[rid.group(1)] = temps[:4]

print("# Sample recipes from gitleaks' own rule tests (tps in cmd/generate/config/rules/*.go)")
print(f"# @ {commit}, MIT (src/redact/GITLEAKS-LICENSE). Regenerate: scripts/gitleaks-samples.py.")
print("# `re` parts are filled with fixed-seed random strings by tests/redaction.rs.")
print(f"# {len(found)} of {len(KEEP)} vendored rules.\n")
for rid in sorted(found):
    for t in found[rid]:
        merged = []
        for k, v in t:
            if merged and merged[-1][0] == k == "lit":
                merged[-1] = (k, merged[-1][1] + v)
            elif v:
                merged.append((k, v))
        print(f'[[sample]]\nrule = "{rid}"')
        print("parts = [" + ", ".join("{%s = %s}" % (k, json.dumps(v)) for k, v in merged) + "]")
