# SPDX-License-Identifier: MIT
"""Tests of gpuprof.bench() and gpuprof.summarize() (python/gpuprof/bench.py), run by
CTest with the other module tests (python.gpuprof). Without PyTorch here, bench() times
with the monotonic clock; the CUDA-event path is a GPU test (t0912).

- the statistics are libgpuprof's: the document bench() returns equals what the CLI
  computes from the same samples (`gpuprof compare` of the file against itself is
  "same"), and the numbers agree with Python's statistics module;
- warm-up runs are excluded, batch size and rate name give the throughput;
- json_path writes a gpuprof.bench/1 file that `gpuprof compare` reads, and a 2x slower
  function is a regression (exit 3);
- bad arguments raise ValueError; without the library bench() raises RuntimeError;
- memory: null with the host clock (and with a CPU-only PyTorch), the peak and the
  at-end bytes per iteration with a fake torch.cuda, their statistics in summarize().
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("GP_BUILD_DIR", os.path.join(SRC, "build"))
LIB = os.environ.get("GP_LIBGPUPROF", os.path.join(BUILD, "libgpuprof.so"))
GPUPROF = os.environ.get("GPUPROF", os.path.join(BUILD, "gpuprof"))
SANITIZED = os.environ.get("GP_SANITIZED") == "1"

sys.path.insert(0, os.path.join(SRC, "python"))
sys.dont_write_bytecode = True


@unittest.skipIf(SANITIZED, "sanitizer build: python3 cannot load the instrumented library")
@unittest.skipUnless(os.path.isfile(LIB), "no libgpuprof.so")
class BenchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.environ["GPUPROF_LIBRARY"] = LIB
        import gpuprof
        gpuprof._lib._reset_for_tests()
        cls.gp = gpuprof
        cls.tmp = tempfile.mkdtemp(prefix="gpuprof-pybench.")

    def test_counts_and_statistics(self):
        calls = []
        doc = self.gp.bench(lambda: calls.append(1), warmup=3, iters=25, batch_size=8,
                            rate_name="samples/s", name="append", show=False, tags={"k": "v"})
        self.assertEqual(len(calls), 28)
        self.assertEqual(doc["schema"], "gpuprof.bench/1")
        self.assertEqual(doc["source"]["kind"], "python")
        self.assertEqual(doc["tags"], {"clock": "monotonic", "k": "v"})
        s = doc["series"][0]
        self.assertEqual((s["name"], s["n"], s["warmup"]), ("append", 25, 3))
        self.assertEqual(len(s["warmup_times_ns"]), 3)
        x = s["times_ns"]
        st = s["stats"]
        self.assertAlmostEqual(st["median_ns"], statistics.median(x), delta=1e-6)
        self.assertAlmostEqual(st["mean_ns"], statistics.mean(x), delta=1e-3)
        self.assertAlmostEqual(st["std_ns"], statistics.stdev(x), delta=1e-3)
        self.assertEqual(st["min_ns"], min(x))
        self.assertAlmostEqual(s["throughput"]["items_per_s"], 8 * 25 / (sum(x) / 1e9),
                               delta=1e-6 * s["throughput"]["items_per_s"])
        self.assertEqual(s["throughput"]["rate_name"], "samples/s")
        # the host clock has no device memory: unknown, null
        for k in ("peak_memory_bytes", "memory_at_end_bytes", "memory_stats",
                  "memory_at_end_stats"):
            self.assertIsNone(s[k], k)

    def test_cpu_torch_has_no_memory(self):
        # PyTorch without CUDA (Debian's CPU build): the host clock, memory null
        try:
            import torch
        except ImportError:
            self.skipTest("no PyTorch")
        if torch.cuda.is_available():
            self.skipTest("CUDA is available: the GPU test t0913 covers it")
        doc = self.gp.bench(lambda: torch.ones(8) * 2, warmup=1, iters=3, show=False)
        s = doc["series"][0]
        self.assertEqual(doc["tags"]["clock"], "monotonic")
        self.assertIsNone(s["peak_memory_bytes"])
        self.assertIsNone(s["memory_at_end_bytes"])
        self.assertIsNone(s["memory_at_end_stats"])

    def test_summarize_memory(self):
        mi = 1 << 20
        doc, table = self.gp.summarize([{
            "name": "s", "times_ns": [29e6, 29.5e6, 28.5e6],
            "peak_memory_bytes": [2048 * mi] * 3,
            "memory_at_end_bytes": [1000 * mi, 1100 * mi, 1200 * mi]}])
        s = doc["series"][0]
        self.assertEqual(s["memory_at_end_bytes"], [1000 * mi, 1100 * mi, 1200 * mi])
        st = s["memory_at_end_stats"]
        self.assertEqual((st["min_bytes"], st["max_bytes"]), (1000 * mi, 1200 * mi))
        self.assertAlmostEqual(st["mean_bytes"], 1100 * mi, delta=1e-3)
        self.assertAlmostEqual(st["std_bytes"], statistics.stdev([1000, 1100, 1200]) * mi,
                               delta=1e-3)
        self.assertEqual(s["memory_stats"]["std_bytes"], 0)
        self.assertIn("  memory  peak   mean 2.0 GiB", table)
        self.assertIn("          at end mean 1.1 GiB", table)
        with self.assertRaises(RuntimeError) as e:
            self.gp.summarize([{"name": "s", "times_ns": [1e6, 2e6],
                                "memory_at_end_bytes": [1.0]}])
        self.assertIn("1 values of memory at the end for 2 iterations", str(e.exception))

    def test_summarize_matches_fixed_samples(self):
        doc, table = self.gp.summarize([{"name": "s", "times_ns": [1e6, 2e6, 3e6, 4e6],
                                         "gpu_ns": [0.5e6, 1e6, 1e6, 2e6]}], seed=5)
        s = doc["series"][0]
        self.assertEqual(doc["seed"], 5)
        self.assertEqual(s["stats"]["median_ns"], 2.5e6)
        # R-7 p90 of 4 values: h = 2.7 -> 3 + 0.7 * 1 = 3.7 ms
        self.assertAlmostEqual(s["stats"]["p90_ns"], 3.7e6, delta=1e-6)
        self.assertEqual(s["gpu_stats"]["median_ns"], 1e6)
        self.assertIn("few_samples", [w["id"] for w in s["warnings"]])
        self.assertIn("s  (4 iterations, 0 warm-up)", table)
        again, _ = self.gp.summarize([{"name": "s", "times_ns": [1e6, 2e6, 3e6, 4e6]}], seed=5)
        self.assertEqual(again["series"][0]["stats"]["median_ci_ns"],
                         s["stats"]["median_ci_ns"])

    def test_summarize_targets(self):
        # 1..4 ms: p50 2.5 ms; the targets are gpuprof bench --target's
        doc, table = self.gp.summarize([{"name": "s", "times_ns": [1e6, 2e6, 3e6, 4e6]}],
                                       targets=["p50<3ms", "max<=3ms"])
        st = [t["status"] for t in doc["series"][0]["targets"]]
        self.assertEqual(st, ["met", "missed"])
        self.assertFalse(doc["targets_met"])
        self.assertIn("\u2717 missed", table)
        with self.assertRaises(RuntimeError) as e:
            self.gp.summarize([{"name": "s", "times_ns": [1e6]}], targets=["p50<3"])
        self.assertIn("a time needs a unit", str(e.exception))

    def test_json_file_and_compare(self):
        base = os.path.join(self.tmp, "base.json")
        new = os.path.join(self.tmp, "new.json")
        self.gp.bench(time.sleep, 0.002, warmup=2, iters=20, show=False, json_path=base)
        self.gp.bench(time.sleep, 0.004, warmup=2, iters=20, show=False, json_path=new)
        with open(base, encoding="utf-8") as f:
            self.assertEqual(json.load(f)["series"][0]["n"], 20)
        same = subprocess.run([GPUPROF, "compare", base, base], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
        self.assertEqual(same.returncode, 0, same.stderr)
        slower = subprocess.run([GPUPROF, "compare", "--json", base, new],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(slower.returncode, 3, slower.stderr)
        self.assertTrue(json.loads(slower.stdout)["regression"])

    def test_bad_arguments(self):
        for kw in ({"iters": 0}, {"warmup": -1}, {"batch_size": 0}):
            with self.assertRaises(ValueError):
                self.gp.bench(lambda: None, show=False, **kw)
        with self.assertRaises(RuntimeError):
            self.gp.bench(lambda: None, device="cuda", show=False)


class _FakeTorch:
    """Just what bench() uses of torch: a CUDA device whose events advance 2 ms per fn call,
    and a log of the calls, to check the synchronisation and the memory reset."""

    def __init__(self):
        self.log, self.clock_ms, self.peak, self.cur = [], 0.0, 0, 0
        fake = self

        class Dev:
            def __init__(self, kind, index=None):
                if ":" in str(kind):
                    kind, index = str(kind).split(":")
                    index = int(index)
                self.type, self.index = str(kind), index

            def __str__(self):
                return self.type if self.index is None else "%s:%d" % (self.type, self.index)

        class Ev:
            def __init__(self, enable_timing=False):
                assert enable_timing
                self.t = None

            def record(self):
                fake.log.append("record")
                self.t = fake.clock_ms

            def elapsed_time(self, other):
                assert "sync" in fake.log[-1:] or fake.log[-1] == "read", fake.log[-3:]
                fake.log.append("read")
                return other.t - self.t

        class DevCtx:
            def __init__(self, d):
                fake.log.append("device %s" % d)

            def __enter__(self):
                return self

            def __exit__(self, *a):
                return False

        class Cuda:
            Event = Ev

            @staticmethod
            def is_available():
                return True

            @staticmethod
            def current_device():
                return 0

            @staticmethod
            def device(d):
                return DevCtx(d)

            @staticmethod
            def synchronize(d=None):
                fake.log.append("sync")

            @staticmethod
            def reset_peak_memory_stats(d=None):
                fake.log.append("reset")
                fake.peak = 0

            @staticmethod
            def max_memory_allocated(d=None):
                return fake.peak

            @staticmethod
            def memory_allocated(d=None):
                return fake.cur

        self.device = Dev
        self.cuda = Cuda

    def work(self):
        self.log.append("fn")
        self.clock_ms += 2.0
        self.peak = 1 << 20
        self.cur += 1 << 10  # a kibibyte kept per call


@unittest.skipIf(SANITIZED, "sanitizer build: python3 cannot load the instrumented library")
@unittest.skipUnless(os.path.isfile(LIB), "no libgpuprof.so")
class CudaPathTest(unittest.TestCase):
    """The CUDA-event path with a fake torch (the real one is t0913, a GPU test)."""

    def test_events_sync_and_memory(self):
        os.environ["GPUPROF_LIBRARY"] = LIB
        import gpuprof
        fake = _FakeTorch()
        sys.modules["torch"] = fake
        try:
            doc = gpuprof.bench(fake.work, warmup=2, iters=5, show=False, device="cuda:0")
        finally:
            del sys.modules["torch"]
        s = doc["series"][0]
        self.assertEqual(doc["tags"]["clock"], "cuda_event")
        self.assertEqual(s["times_ns"], [2e6] * 5)
        self.assertEqual(s["peak_memory_bytes"], [1 << 20] * 5)
        # at the end of each timed call: 2 warm-up calls, then 1 KiB more per call
        self.assertEqual(s["memory_at_end_bytes"], [(3 + i) << 10 for i in range(5)])
        self.assertEqual(s["memory_at_end_stats"]["max_bytes"], 7 << 10)
        log = fake.log
        self.assertEqual(log[0], "device cuda:0")
        # a sync before the warm-up, after each warm-up call, none inside the timed loop,
        # one after it, before the events are read
        self.assertEqual(log[1:6], ["sync", "fn", "sync", "fn", "sync"])
        timed = log[6:log.index("read")]
        self.assertEqual(timed, ["reset", "record", "fn", "record"] * 5 + ["sync"])
        with self.assertRaises(ValueError):
            sys.modules["torch"] = fake
            try:
                gpuprof.bench(fake.work, iters=1, show=False, device="mps")
            finally:
                del sys.modules["torch"]


class NoLibraryTest(unittest.TestCase):
    def test_raises_with_the_reason(self):
        code = ("import gpuprof\n"
                "try:\n"
                "    gpuprof.bench(lambda: None, iters=1, show=False)\n"
                "except RuntimeError as e:\n"
                "    print('raised:', e)\n")
        env = dict(os.environ, GPUPROF_LIBRARY="/nonexistent/libgpuprof.so",
                   PYTHONPATH=os.path.join(SRC, "python"), PYTHONDONTWRITEBYTECODE="1")
        r = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("raised: gpuprof.bench needs libgpuprof.so", r.stdout)


if __name__ == "__main__":
    unittest.main()
