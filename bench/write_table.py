"""Writes the figures one run of the benchmarks recorded (the JSON lines of TACK_BENCH_RECORD,
bench/_util.py's record() and bench/ratio_reporter.hpp) into docs/performance.md as a dated
table: the date, the commit, the machine and its load before and after, then one row per
figure. The table replaces the one between the markers below (appended at the end the first
time), so the file always shows the latest run; the sections above it keep the discussion.

    python bench/write_table.py RECORD_FILE LOAD_BEFORE [DOC]
"""
import datetime
import json
import os
import platform
import subprocess
import sys

BEGIN = "<!-- latest-run:begin (written by bench/write_table.py; do not edit by hand) -->"
END = "<!-- latest-run:end -->"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def table(rows, load_before):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [BEGIN, "", f"## Latest run: {now}", "",
           f"Commit `{commit()}`, {cpu_model()}, {os.cpu_count()} CPUs; load average "
           f"{load_before} before, {os.getloadavg()[0]:.2f} after. Written by "
           "`tools/run_benchmarks.sh`; ratios above 1 mean Tack is faster (the meaning column "
           "says what each value is).", "",
           "| benchmark | case | value | meaning |", "|---|---|---|---|"]
    for r in rows:
        v = r["value"]
        value = f"{v:.2f}" if isinstance(v, (int, float)) else str(v)
        out.append(f"| {r['bench']} | {r['case']} | {value} | {r['meaning']} |")
    out += ["", END]
    return "\n".join(out) + "\n"


def main():
    record, load_before = sys.argv[1], sys.argv[2]
    doc = sys.argv[3] if len(sys.argv) > 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "docs", "performance.md")
    rows = []
    with open(record) as f:
        for line in f:
            if line.strip():
                rows.append(json.loads(line))
    if not rows:
        sys.exit(f"{record} holds no figures: nothing written to {doc}")
    with open(doc) as f:
        text = f.read()
    new = table(rows, load_before)
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + new + text[text.index(END) + len(END) + 1:]
    else:
        text = text.rstrip("\n") + "\n\n" + new
    with open(doc, "w") as f:
        f.write(text)
    print(f"{len(rows)} figures written to {doc}")


if __name__ == "__main__":
    main()
