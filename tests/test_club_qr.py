"""The table cards' QR encoder (web/club/qr.js) against a reference encoder, module by
module: Kazuhiko Arase's QR code generator as npm ships it (in qrcode-terminal), for links
of every length up to version 10 and every mask. Skipped without node or that copy."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

QR = Path(__file__).resolve().parents[1] / "src" / "binokel" / "web" / "club" / "qr.js"
REFERENCE = next((p for p in (Path("/usr/lib/node_modules/npm/node_modules/qrcode-terminal/vendor/QRCode"),
                              Path("/usr/local/lib/node_modules/npm/node_modules/qrcode-terminal/vendor/QRCode"))
                  if (p / "index.js").exists()), None)
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None or REFERENCE is None, reason="needs node and npm's qrcode-terminal")

SCRIPT = """
import { qrMatrix } from %(qr)s;
import { createRequire } from "module";
const require = createRequire(import.meta.url);
const QRCode = require(%(ref)s + "/index.js");
const Level = require(%(ref)s + "/QRErrorCorrectLevel.js");
const texts = JSON.parse(process.argv[2]);
const out = [];
for (const text of texts) {
  const auto = new QRCode(-1, Level.M); auto.addData(text); auto.make();
  for (let mask = 0; mask < 8; mask++) {
    const ours = qrMatrix(text, mask);
    const version = (ours.length - 17) / 4;
    const ref = new QRCode(version, Level.M); ref.addData(text); ref.makeImpl(false, mask);
    const same = JSON.stringify(ours) === JSON.stringify(ref.modules.map((row) => row.map(Boolean)));
    out.push({ length: text.length, mask, version, reference_version: auto.typeNumber, same });
  }
}
console.log(JSON.stringify(out));
"""


def test_the_table_card_qr_codes_match_the_reference(tmp_path: Path) -> None:
    base = "http://192.168.178.20:8000/club#/t/club-Xy3_Q9aB2cD4eF6g/3/14/"
    texts = [base[:n] for n in (1, 14, 20, 30, 45, 60, 62)] + [base + "s" * n for n in (0, 20, 43, 60, 80, 110, 150)]
    script = tmp_path / "check.mjs"
    script.write_text(SCRIPT % {"qr": json.dumps(QR.as_uri()), "ref": json.dumps(str(REFERENCE))}, "utf-8")
    result = subprocess.run([NODE, str(script), json.dumps(texts)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert {row["version"] for row in rows} >= set(range(1, 11))  # every version we make
    assert [row for row in rows if not row["same"] or row["version"] != row["reference_version"]] == []
