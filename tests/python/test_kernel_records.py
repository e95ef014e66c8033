"""Kernel records (docs/design/kernel_records.md): a process that finds a kernel's records in the
disk cache runs neither the front end nor the lowering for it, computes the same results, and
falls back to lowering on anything missing, changed or damaged. Each case runs child processes
on one cache directory and reads their counts (tack._tack._kernel_record_counts)."""
import json
import os
import struct
import subprocess
import sys

import pytest

pytestmark = pytest.mark.cpu_only("records are made by the CPU target; other devices lower")

PRELUDE = """
import json, sys
import numpy as np
import tack

SCALE = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0

@tack.func
def twice(v):
    return HELPER_BODY

@tack.kernel
def scaled(out, x, a: float):
    for i in range(len(out)):
        out[i] = twice(x[i]) * a + SCALE

@tack.kernel
def histogram(keys, bins):
    for i in range(len(keys)):
        tack.atomic_add(bins, keys[i] % len(bins), 1)

def report(extra=None):
    out = dict(tack._tack._kernel_record_counts())
    out.update(extra or {})
    print(json.dumps(out))
"""

MAIN = PRELUDE + """
x = tack.array(np.arange(64, dtype=np.float32))
out = tack.zeros(64)
scaled(out, x, 3.0)
keys = tack.array(np.arange(100, dtype=np.int32))
bins = tack.zeros(8, tack.i32)
histogram(keys, bins)
counts = dict(tack._tack._kernel_record_counts())
ir = tack.inspect(scaled, out, x, 3.0)
report({"before_inspect": counts, "out": out.numpy().tolist(), "bins": bins.numpy().tolist(),
        "ir": ir})
"""


def run(tmp_path, body, *args, env=None, helper="v + v"):
    script = tmp_path / "child.py"
    script.write_text(body.replace("HELPER_BODY", helper))
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(sys.path)
    e["TACK_CACHE_DIR"] = str(tmp_path / "cache")
    e.pop("TACK_PRINT_IR", None)
    # The test command's CUDA check observes every variant, and no variant comes from a record
    # while it does (docs/design/kernel_records.md).
    e.pop("TACK_CUDA_CHECK", None)
    e.update(env or {})
    r = subprocess.run([sys.executable, str(script), *map(str, args)], env=e, timeout=180,
                       capture_output=True, text=True)
    assert r.returncode == 0, (r.stdout, r.stderr[-3000:])
    return json.loads(r.stdout.strip().splitlines()[-1]), r


def expected_out(scale, helper_factor=2.0):
    return [helper_factor * i * 3.0 + scale for i in range(64)]


def test_a_second_process_parses_and_lowers_nothing(tmp_path):
    first, _ = run(tmp_path, MAIN)
    assert first["before_inspect"]["lowered"] == 2 and first["before_inspect"]["from_records"] == 0
    second, _ = run(tmp_path, MAIN)
    before = second["before_inspect"]
    assert before["lowered"] == 0 and before["parsed"] == 0, before
    assert before["names_parsed"] == 0 and before["records_refused"] == 0, before
    assert before["from_records"] == 2 and before["kernels_from_records"] == 2, before
    assert second["out"] == first["out"] == expected_out(2.0)
    assert second["bins"] == first["bins"] == [13, 13, 13, 13, 12, 12, 12, 12]
    # inspect needs the IR: the variant is lowered then, and it is the same IR.
    assert second["ir"] == first["ir"]
    assert second["lowered"] == 1 and second["parsed"] == 1


def test_a_changed_constant_or_device_function_misses(tmp_path):
    run(tmp_path, MAIN)
    other_value, _ = run(tmp_path, MAIN, 5.0)
    assert other_value["out"] == expected_out(5.0)
    assert other_value["before_inspect"]["lowered"] == 1  # scaled: its constant changed
    other_helper, _ = run(tmp_path, MAIN, helper="v * 3.0")
    assert other_helper["out"] == expected_out(2.0, helper_factor=3.0)
    assert other_helper["before_inspect"]["lowered"] == 1


ASSERTING = PRELUDE + """
@tack.kernel
def checked(out, x):
    for i in range(len(out)):
        assert x[i] < 10.0, "too large"
        out[i] = x[i]

tack.set_debug(True)
x = tack.array(np.arange(16, dtype=np.float32))
out = tack.zeros(16)
try:
    checked(out, x)
except AssertionError as e:
    message = str(e)
try:
    checked(tack.zeros(32), tack.zeros(16))   # x[16] is out of bounds: debug mode says so
except IndexError as e:
    index = str(e)
report({"message": message, "index": index})
"""


def test_debug_variants_keep_their_messages(tmp_path):
    first, _ = run(tmp_path, ASSERTING)
    second, _ = run(tmp_path, ASSERTING)
    assert "too large" in first["message"] and "iteration i=10" in first["message"]
    assert second["message"] == first["message"] and second["index"] == first["index"]
    # One variant, from its record; the assertion's message lowered it (its site's text).
    assert second["from_records"] == 1 and second["lowered"] == 1


def entries(folder):
    return [p for p in folder.iterdir() if p.suffix == ".bin"]


def test_damaged_records_and_missing_images_cost_a_lowering(tmp_path):
    first, _ = run(tmp_path, MAIN)
    records = entries(tmp_path / "cache" / "records")
    assert records
    # Each record cut short under a valid header and checksum (the disk cache's format: magic,
    # key length, support/hash.hpp's FNV-1a of the content, key, content): the record's own
    # reader refuses it.
    for p in records:
        data = p.read_bytes()
        key_len = struct.unpack_from("<Q", data, 9)[0]
        head = 9 + 16 + key_len
        content = data[head:head + (len(data) - head) // 2]
        h = 0xcbf29ce484222325  # FNV-1a's offset basis (support/hash.hpp)
        for b in content:
            h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
        p.write_bytes(data[:9] + struct.pack("<QQ", key_len, h) + data[25:head] + content)
    damaged, _ = run(tmp_path, MAIN)
    assert damaged["before_inspect"]["from_records"] == 0
    # Read (the checksum holds) and refused by the records' own readers: the called names of
    # both kernels and the helper, both kernel records, both variant records.
    assert damaged["before_inspect"]["records_refused"] == 7, damaged["before_inspect"]
    assert damaged["before_inspect"]["lowered"] == 2
    assert damaged["out"] == first["out"] and damaged["bins"] == first["bins"]
    # Rewritten by that process: the next one uses them again.
    again, _ = run(tmp_path, MAIN)
    assert again["before_inspect"]["from_records"] == 2
    # The records without the images: the variants come from records and lower to compile.
    for p in entries(tmp_path / "cache"):
        p.unlink()
    no_images, _ = run(tmp_path, MAIN)
    assert no_images["before_inspect"]["from_records"] == 2
    assert no_images["before_inspect"]["lowered"] == 2
    assert no_images["out"] == first["out"] and no_images["bins"] == first["bins"]


def test_print_ir_turns_records_off(tmp_path):
    run(tmp_path, MAIN)
    printed, r = run(tmp_path, MAIN, env={"TACK_PRINT_IR": "1"})
    assert printed["before_inspect"]["from_records"] == 0
    assert "kernel scaled" in r.stderr


LATE_PRINT = PRELUDE + """
import os
x = tack.array(np.arange(64, dtype=np.float32))
out = tack.zeros(64)
os.environ["TACK_PRINT_IR"] = "1"   # after the kernels are made: read again at the call
scaled(out, x, 3.0)
report()
"""


def test_print_ir_set_after_the_kernel_is_made_still_prints(tmp_path):
    run(tmp_path, MAIN)
    late, r = run(tmp_path, LATE_PRINT)
    assert late["from_records"] == 0 and late["lowered"] == 1, late
    assert "kernel scaled" in r.stderr


def test_no_variant_comes_from_a_record_while_a_target_observes_every_variant(tmp_path):
    import tack
    if "cuda" not in tack._tack._about()["device_kinds"]:
        pytest.skip("built without CUDA's headers: no CUDA check to observe variants")
    # The CUDA check (TACK_CUDA_CHECK) writes out every variant the CPU lowers: a record would
    # hide it. Records are still written then, and a later process without it reads them.
    check = tmp_path / "cuda-check"
    observed, _ = run(tmp_path, MAIN, env={"TACK_CUDA_CHECK": str(check)})
    assert observed["before_inspect"]["lowered"] == 2
    again, _ = run(tmp_path, MAIN, env={"TACK_CUDA_CHECK": str(check)})
    assert again["before_inspect"]["from_records"] == 0, again
    assert again["before_inspect"]["lowered"] == 2, again
    assert any(check.iterdir()), "the CUDA check wrote nothing"
    plain, _ = run(tmp_path, MAIN)
    assert plain["before_inspect"]["from_records"] == 2, plain
    assert plain["out"] == observed["out"]


VALUE = PRELUDE + """
@tack.kernel
def total(x) -> tack.f64:
    s = 0.0
    for i in range(len(x)):
        s += x[i]
    return s

report({"total": total(tack.array(np.arange(10, dtype=np.float32)))})
"""


def test_a_kernel_with_a_value_is_not_recorded(tmp_path):
    first, _ = run(tmp_path, VALUE)
    second, _ = run(tmp_path, VALUE)
    assert first["total"] == second["total"] == 45.0
    assert second["from_records"] == 0 and second["lowered"] == 2  # loop and epilogue parts


SIGNATURES = PRELUDE + """
x = tack.array(np.arange(64, dtype=np.float32))
out = tack.zeros(64)
scaled(out, x, 3.0)
x64 = tack.array(np.arange(64, dtype=np.float64))
out64 = tack.zeros(64, tack.f64)
scaled(out64, x64, 3.0)
tack.set_debug(True)
checked = tack.zeros(64)
scaled(checked, x, 3.0)
try:
    scaled(tack.zeros(65), x, 3.0)   # x[64]: only the debug variant says so
except IndexError:
    raised = True
else:
    raised = False
report({"out": out.numpy().tolist(), "out64": out64.numpy().tolist(),
        "checked": checked.numpy().tolist(), "raised": raised})
"""


def test_each_signature_and_debug_mode_has_its_own_record(tmp_path):
    first, _ = run(tmp_path, SIGNATURES)
    second, _ = run(tmp_path, SIGNATURES)
    assert second["from_records"] == 3 and second["lowered"] == 0, second
    for r in (first, second):
        assert r["out"] == r["out64"] == r["checked"] == expected_out(2.0)
        assert r["raised"]


LARGE = PRELUDE + """
@tack.kernel
def doubled(out, x):
    for i in range(len(out)):
        out[i] = x[i] * 2.0

n = 1 << 20
x = tack.array(np.arange(n, dtype=np.float32))
out = tack.zeros(n)
doubled(out, x)    # TACK_STREAM_BYTES=0: the streaming code
rng = np.random.default_rng(5)
keys_np = rng.integers(0, 1 << 30, 1 << 22).astype(np.int32)
bins = tack.zeros(64, tack.i32)
histogram(tack.array(keys_np), bins)   # long enough to fan out: the privatized code
assert out.numpy().tolist() == (np.arange(n, dtype=np.float32) * 2).tolist()
assert bins.numpy().tolist() == np.bincount(keys_np % 64, minlength=64).tolist()
report()
"""


def test_streaming_and_privatized_codes_come_from_records(tmp_path):
    env = {"TACK_STREAM_BYTES": "0", "TACK_NUM_THREADS": "2"}
    run(tmp_path, LARGE, env=env)
    second, _ = run(tmp_path, LARGE, env=env)
    # Their images are found by the IR text the record holds, their targets by the record.
    assert second["from_records"] >= 2 and second["lowered"] == 0, second  # and the fills
