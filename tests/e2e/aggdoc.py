# SPDX-License-Identifier: MIT
"""aggdoc.py OUT [--ranks N] [--hosts H] [--desync] [--no-stragglers] [--no-collectives]
[--unknown] [--schema S] - writes a gpuprof.aggregate/1 document by hand, as
the schema of issue 22 describes it, for the tests of `gpuprof aggregate`'s text
(t0610-t0619): 8 ranks on 2 hosts by default, rank 3 a straggler (a compute outlier),
node-1's clock 12.345 ms ahead, two process groups, a finding. --unknown leaves values
unknown (null) that the text must show as "-"."""
import argparse
import json

ap = argparse.ArgumentParser()
ap.add_argument('out')
ap.add_argument('--ranks', type=int, default=8)
ap.add_argument('--hosts', type=int, default=2)
ap.add_argument('--desync', action='store_true')
ap.add_argument('--no-stragglers', action='store_true')
ap.add_argument('--no-collectives', action='store_true')
ap.add_argument('--unknown', action='store_true')
ap.add_argument('--schema', default='gpuprof.aggregate/1')
a = ap.parse_args()

n, per = a.ranks, max(1, a.ranks // a.hosts)
SLOW = 3 if n > 3 else None
ranks = []
for r in range(n):
    host = 'node-%d' % (r // per)
    step = 100_000_000 + 1000 * r + (12_000_000 if r == SLOW else 0)
    ranks.append({
        'rank': r, 'host': None if a.unknown and r == 1 else host, 'file': 'reports/r%d.json' % r,
        'clock_offset_ns': 0 if r // per == 0 else 12_345_000,
        'clock_uncertainty_ns': 0 if r // per == 0 else 1200,
        'steps': 6, 'step_mean_ns': step, 'step_p50_ns': step - 500, 'step_p95_ns': step + 2_000_000,
        'gpu_busy_ns': 500_000_000, 'gpu_idle_ns': 100_000_000, 'gpu_idle_pct': 16.7,
        'compute_ns': 400_000_000 + (70_000_000 if r == SLOW else 0), 'communication_ns': 90_000_000,
        'exposed_comm_ns': 30_000_000, 'wait_ns': 1_000_000 if r == SLOW else 45_000_000,
        'collectives': 120,
        'peak_memory_bytes': None if a.unknown else 42 * 2**30 + r * 2**20,
        'gpu_model': 'NVIDIA H100 80GB HBM3', 'gpu_clock_mhz': None if a.unknown else 1980,
        'outliers': ['step_mean_ns', 'compute_ns'] if r == SLOW else [],
    })
metrics = ['step_mean_ns', 'step_p50_ns', 'step_p95_ns', 'gpu_busy_ns', 'gpu_idle_ns', 'gpu_idle_pct',
           'compute_ns', 'communication_ns', 'exposed_comm_ns', 'wait_ns', 'collectives',
           'peak_memory_bytes', 'gpu_clock_mhz', 'clock_offset_ns', 'steps']
table = {}
for m in metrics:
    vals = [(x[m], x['rank']) for x in ranks if x[m] is not None]
    if not vals:
        table[m] = None
        continue
    s = sorted(v for v, _ in vals)
    table[m] = {'min': min(vals)[0], 'max': max(vals)[0], 'mean': sum(s) / len(s),
                'median': s[len(s) // 2], 'min_rank': min(vals)[1], 'max_rank': max(vals)[1]}
stragglers = [] if a.no_stragglers or SLOW is None else [
    {'rank': SLOW, 'blame_ns': 480_000_000, 'last_count': 40, 'collectives': 120,
     'last_arrival_pct': 33.3, 'p_value': 1.2e-9, 'significant': True, 'cause': 'compute',
     'cause_detail': 'rank 3 computes 70.00 ms more per window than the median rank'},
    {'rank': 5, 'blame_ns': 2_500_000, 'last_count': 12, 'collectives': 120,
     'last_arrival_pct': 10.0, 'p_value': 0.8731, 'significant': False, 'cause': None,
     'cause_detail': None},
]
collectives = [] if a.no_collectives else [
    {'pg': '0', 'pg_desc': 'default_pg', 'name': 'allreduce', 'count': 40, 'ranks': n,
     'bytes': 1_062_010_880, 'transfer_ns': 9_500_000, 'wait_ns': 480_000_000,
     'skew_ns': {'mean': 12_000_000, 'p95': 12_100_000, 'max': 12_400_000},
     'algbw_gbps': 111.79, 'busbw_gbps': 111.79 * 2 * (n - 1) / n, 'factor': 2 * (n - 1) / n,
     'cross_host': True},
    {'pg': '1', 'pg_desc': None, 'name': 'allgather', 'count': 20, 'ranks': n,
     'bytes': None if a.unknown else 4096, 'transfer_ns': 200_000, 'wait_ns': 1500,
     'skew_ns': {'mean': 100, 'p95': 250, 'max': 300},
     'algbw_gbps': None if a.unknown else 0.02048, 'busbw_gbps': None if a.unknown else 0.01792,
     'factor': (n - 1) / n, 'cross_host': None if a.unknown else False},
]
doc = {
    'schema': a.schema, 'gpuprof_version': '0.1.0',
    'inputs': [{'file': x['file'], 'rank': x['rank']} for x in ranks],
    'world_size': None if a.unknown else n, 'backend': 'nccl',
    'clock': {'reference_rank': 0, 'method': 'collective-bounds', 'collectives_used': 412,
              'max_uncertainty_ns': 1200},
    'ranks': ranks, 'table': table, 'stragglers': stragglers, 'collectives': collectives,
    'desync': None, 'unmatched': 3,
    'heatmap': {'start_ns': 0, 'bin_ns': 10_000_000, 'ranks': list(range(n)),
                'wait_ns': [[0, 1000] for _ in range(n)]},
    'findings': [] if a.no_stragglers else [
        {'id': 'straggler', 'severity': 'high',
         'title': 'Rank 3 arrives last at 33.3% of the collectives: the others wait 480.0 ms for it',
         'evidence': {'rank': 3, 'blame_ns': 480_000_000, 'last_arrival_pct': 33.3, 'p_value': 1.2e-9},
         'suggestion': 'Look at rank 3\'s own report: its compute takes 70.00 ms more than the median rank\'s.',
         'impact_pct': 8.0}],
}
if n > 1 and a.desync:
    doc['desync'] = {'pg': '0', 'seq': 57, 'rank': 1, 'kind': 'metadata', 'collective': 'allreduce',
                     'expected': {'name': 'allreduce', 'dtype': 'Float', 'bytes': 26550272, 'group_size': n},
                     'found': {'name': 'allreduce', 'dtype': 'Half', 'bytes': 13275136, 'group_size': n},
                     'detail': 'dtype Half and bytes 13275136 where the other ranks have Float and 26550272'}
if not doc['findings'] and not a.no_stragglers:
    del doc['findings']
if a.unknown:
    doc['warnings'] = ['rank 8 of world size 9 missing: no report of it']
json.dump(doc, open(a.out, 'w'), indent=2, sort_keys=True)
