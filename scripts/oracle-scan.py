#!/usr/bin/env python3
"""Yelp's detect-secrets over files, as an oracle independent of debrief's own rules.

    oracle-scan.py FILE...    # one JSON line per finding: file, line, type, secret

Uses detect-secrets' default settings (every plugin, every default filter). Installed
for the tests by scripts/oracle-venv (pinned in tests/oracle/requirements.txt);
tests/redaction_planted.rs runs this script with that venv's python.
"""
import json
import sys

from detect_secrets import SecretsCollection
from detect_secrets.settings import default_settings


def main(paths):
    with default_settings():
        found = SecretsCollection()
        for path in paths:
            found.scan_file(path)
        for filename, secret in found:
            print(json.dumps({
                "file": filename,
                "line": secret.line_number,
                "type": secret.type,
                "secret": secret.secret_value,
            }))


if __name__ == "__main__":
    main(sys.argv[1:])
