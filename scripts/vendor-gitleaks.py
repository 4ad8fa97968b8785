#!/usr/bin/env python3
"""Vendor a subset of gitleaks' secret rules into src/redact/gitleaks.toml.

Usage: scripts/vendor-gitleaks.py PATH/TO/gitleaks/config/gitleaks.toml COMMIT

gitleaks (https://github.com/gitleaks/gitleaks, MIT licence, (c) 2019 Zachary Rice)
maintains the rule set; we take the rules for the providers people paste into agent
sessions, keep id, description, regex, secretGroup, entropy, keywords and the per-rule
allowlist regexes that test the secret, and drop everything that needs a file path
(redaction sees text, not files). Go RE2 and Rust's `regex` share their syntax; the
Rust side compiles every rule in a unit test, so a rule that stops compiling fails CI.
"""
import re
import sys
import tomllib

KEEP = """
1password-secret-key 1password-service-account-token age-secret-key
anthropic-admin-api-key anthropic-api-key artifactory-api-key artifactory-reference-token
atlassian-api-token aws-access-token aws-amazon-bedrock-api-key-long-lived
aws-amazon-bedrock-api-key-short-lived azure-ad-client-secret
cloudflare-api-key cloudflare-global-api-key cloudflare-origin-ca-key cohere-api-token
curl-auth-header curl-auth-user databricks-api-token datadog-access-token
digitalocean-access-token digitalocean-pat digitalocean-refresh-token
discord-api-token discord-client-secret doppler-api-token dropbox-api-token
dropbox-long-lived-api-token dropbox-short-lived-api-token facebook-access-token
flyio-access-token gcp-api-key
github-app-token github-fine-grained-pat github-oauth github-pat github-refresh-token
gitlab-cicd-job-token gitlab-deploy-token gitlab-feature-flag-client-token gitlab-feed-token
gitlab-incoming-mail-token gitlab-kubernetes-agent-token gitlab-oauth-app-secret gitlab-pat
gitlab-pat-routable gitlab-ptt gitlab-rrt gitlab-runner-authentication-token
gitlab-runner-authentication-token-routable gitlab-scim-token gitlab-session-cookie
grafana-api-key grafana-cloud-api-token grafana-service-account-token
hashicorp-tf-api-token heroku-api-key heroku-api-key-v2
huggingface-access-token huggingface-organization-api-token jwt linear-api-key
mailgun-private-api-token microsoft-teams-webhook new-relic-user-api-key notion-api-token
npm-access-token openai-api-key perplexity-api-key planetscale-api-token planetscale-oauth-token
planetscale-password postman-api-token prefect-api-token private-key pulumi-api-token
pypi-upload-token rubygems-api-token sendgrid-api-token sentry-access-token sentry-org-token
sentry-user-token shopify-access-token shopify-custom-access-token
shopify-private-app-access-token shopify-shared-secret
slack-app-token slack-bot-token slack-config-access-token slack-config-refresh-token
slack-legacy-bot-token slack-legacy-token slack-legacy-workspace-token slack-user-token
slack-webhook-url square-access-token stripe-access-token telegram-bot-api-token
twilio-api-key vault-batch-token vault-service-token
""".split()


QUANT = re.compile(r"\{\d+(?:,\d*)?\}")


def to_rust(rx: str) -> str:
    """Go's RE2 reads a `{` that starts no repetition as a literal; Rust's regex wants it
    escaped. And Rust's `\\w` is Unicode-aware, which makes `[\\w-]{50,1000}` too big to
    compile; secrets are ASCII, so `\\w` becomes the ASCII class `[:word:]`."""
    out, i, depth = [], 0, 0
    while i < len(rx):
        c = rx[i]
        if c == "\\":
            esc = rx[i : i + 2]
            if esc == "\\w":
                out.append("[:word:]" if depth else "[[:word:]]")
            else:
                out.append(esc)
            i += 2
            continue
        if c == "[" and depth == 0:
            depth = 1
            out.append(c)
            # A `]` right after `[` or `[^` is a literal member.
            if rx[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            if rx[i + 1 : i + 2] == "]":
                out.append("\\]")
                i += 1
        elif c == "]" and depth:
            depth = 0
            out.append(c)
        elif c == "{" and not depth and not QUANT.match(rx, i):
            out.append("\\{")
        else:
            out.append(c)
        i += 1
    return "".join(out)


def first_group_repeats(rx: str) -> bool:
    """Whether the regex's first capturing group carries a quantifier, as in
    `[a-z0-9]{8}-([a-z0-9]{4}-){3}`: it then captures one repetition, a few characters
    of the token. gitleaks reports that group as the secret (it only flags findings);
    redaction must hide the whole token, so such rules get `secretGroup = 0`."""
    i = 0
    while i < len(rx):
        c = rx[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i += 1
            while rx[i] != "]" or rx[i - 1] == "\\":
                i += 1
        elif c == "(" and not rx.startswith("(?", i):
            depth, j = 0, i
            while True:
                if rx[j] == "\\":
                    j += 2
                    continue
                depth += {"(": 1, ")": -1}.get(rx[j], 0)
                if depth == 0:
                    break
                j += 1
            return rx[j + 1 : j + 2] in ("{", "*", "+", "?")
        i += 1
    return False


def lit(s: str) -> str:
    # TOML literal strings cannot hold a ''' run; none of the kept rules has one.
    assert "'''" not in s, s
    return "'''" + s + "'''"


def main() -> None:
    src, commit = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f:
        cfg = tomllib.load(f)
    rules = {r["id"]: r for r in cfg["rules"]}
    missing = [k for k in KEEP if k not in rules]
    if missing:
        sys.exit(f"not in gitleaks.toml: {missing}")
    out = [
        "# Secret rules vendored from gitleaks — do not edit by hand; regenerate with",
        "# scripts/vendor-gitleaks.py.",
        f"# Source: https://github.com/gitleaks/gitleaks config/gitleaks.toml @ {commit}",
        "# Licence: MIT, Copyright (c) 2019 Zachary Rice (full text: src/redact/GITLEAKS-LICENSE).",
        f"# {len(KEEP)} of {len(rules)} rules: providers whose keys show up in agent sessions.",
        "",
    ]
    for rid in KEEP:
        r = rules[rid]
        out.append("[[rules]]")
        out.append(f'id = "{rid}"')
        out.append(f"description = {lit(r['description'])}")
        out.append(f"regex = {lit(to_rust(r['regex']))}")
        if "secretGroup" in r:
            out.append(f"secretGroup = {r['secretGroup']}")
        elif first_group_repeats(r["regex"]):
            out.append("secretGroup = 0")
        if "entropy" in r:
            out.append(f"entropy = {r['entropy']}")
        if r.get("keywords"):
            out.append("keywords = [" + ", ".join(f'"{k}"' for k in r["keywords"]) + "]")
        allow = []
        for a in r.get("allowlists", []):
            # Only allowlists that look at the secret itself apply to text.
            if a.get("regexTarget", "secret") == "secret" and "paths" not in a:
                allow += [to_rust(x) for x in a.get("regexes", [])]
                allow += [re.escape(s) for s in a.get("stopwords", [])]
        if allow:
            out.append("allow = [" + ", ".join(lit(x) for x in allow) + "]")
        out.append("")
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
