# SPDX-License-Identifier: MIT
# history-timeline.sh - sourced by the history tests: a run directory with a trace and a
# metrics timeline of 20 samples of one H100 on host node7 (driver 550.54.15), for the
# noise guard of `gpuprof history add`.
#
# history_timeline DIR TRACE CLOCK_MHZ REASONS PROCESSES: DIR/trace.json is a copy of TRACE;
# the SM clock is CLOCK_MHZ (+0..2 MHz), sample 8 has the clock-event REASONS (a bit mask:
# 1 gpu_idle, 32 sw_thermal, ...), samples 11 to 20 list PROCESSES compute processes (1 before).
history_timeline() {
	mkdir -p "$1"
	cp "$2" "$1/trace.json"
	python3 - "$1/metrics.jsonl" "$3" "$4" "$5" <<'PY'
import json, sys
path, mhz, reasons, procs = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with open(path, "w") as f:
    f.write(json.dumps({"schema": "gpuprof.metrics/1", "hostname": "node7",
                        "driver_version": "550.54.15", "interval_ms": 100,
                        "start_monotonic_ns": 0, "start_unix_ns": 0, "gpu_status": None,
                        "watched_pid": None}) + "\n")
    for i in range(20):
        gpu = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "utilization_gpu_ratio": 0.9,
               "clock_sm_hertz": mhz * 1e6 + (i % 3) * 1e6, "temperature_celsius": 60 + i,
               "clock_event_reasons": reasons if i == 7 else 0,
               "processes_total": procs if i >= 10 else 1}
        f.write(json.dumps({"schema": "gpuprof.sample/1", "seq": i + 1,
                            "time_monotonic_ns": i * 10**8, "host": {}, "gpus": [gpu]}) + "\n")
    f.write(json.dumps({"end": True, "samples": 20, "missed_periods": 0,
                        "end_monotonic_ns": 2 * 10**9}) + "\n")
PY
}
