#!/usr/bin/env python3
"""Per CUDA source line of an ncu export (`ncu -i R --page source --csv --print-source cuda,sass`):
share of stall samples, share of instructions executed, the top stall reasons. Standard library.
  lines.py CSV [TOP]"""
import csv, sys, collections
path = sys.argv[1]; top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
rows = list(csv.reader(open(path, newline='')))
cur = None; header = None
agg = collections.defaultdict(lambda: [0.0, 0.0, '', collections.Counter()])
stallcols = []
for r in rows:
    if not r: continue
    if r[0] in ('File Path', 'File Name') and len(r) > 1: cur = r[1]; continue
    if r[0] == 'Line No': header = r; 
    if r[0] == 'Line No':
        idx_s = header.index('Warp Stall Sampling (All Samples)'); idx_i = header.index('Instructions Executed')
        stallcols = [(i, h) for i, h in enumerate(header) if h.startswith('stall_') and 'Not Issued' not in h]
        continue
    if header is None or r[0] == '' : continue
    try:
        s = float(r[idx_s] or 0); n = float(r[idx_i] or 0)
    except (ValueError, IndexError): continue
    key = (cur.split('/')[-1], int(r[0]))
    a = agg[key]; a[0] += s; a[1] += n; a[2] = r[1][:110]
    for i, h in stallcols:
        try: a[3][h[6:]] += float(r[i] or 0)
        except ValueError: pass
tot_s = sum(v[0] for v in agg.values()); tot_i = sum(v[1] for v in agg.values())
print(f"total stall samples {tot_s:.0f}, instructions {tot_i:.3e}")
for (f, l), (s, n, src, st) in sorted(agg.items(), key=lambda kv: -kv[1][0])[:top]:
    tops = ' '.join(f"{k}:{v/max(s,1):.0%}" for k, v in st.most_common(3))
    print(f"{s/tot_s:6.1%} {n/tot_i:6.1%}  {f}:{l}  {src.strip()[:90]}  [{tops}]")
