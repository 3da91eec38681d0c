#!/usr/bin/env python3
"""Records and table of scripts/gpu-ladder.sh (standard library only: runs on any python3).

  ladder_report.py record CELLS KIND key=value...   append one JSON line to CELLS; a key `summary`
      or `compare_json` names a file whose figures are copied in (the run folder is temporary)
  ladder_report.py floor CELLS REGIME              one line: the regime's work and floor
  ladder_report.py table CELLS CSV JSON            the ladder table on stdout; CSV and JSON written

The floor of a regime is max(flops / fp64 FMA rate, on-chip bytes / LDS bandwidth, terms / inner
term rate) per zone-step over the whole GPU, with the work counted by `zoneode network info` and
the rates measured by zoneode-ceilings in the same run.
"""
import csv
import json
import statistics
import sys

REGIME_NAMES = {
    "a": "s150, T9 0.8-1.6, he4/c12 (tuning deck)",
    "b": "s150, T9 5, rho 1e8, he4/c12",
    "c1": "rp-z24, T9 5, rho 1e8, C/O",
    "c2": "rp-z24, rp-process, T9 1-1.5",
    "d": "the study's problem: s150, T9 5, rho 1e8, C/O, study schedule, 104 zones",
    "d832": "the study's problem at 832 zones",
    "d6656": "the study's problem at 6,656 zones",
    "drpz24": "rp-z24, he4/c12, study schedule, 104 zones (the first (d))",
    "r832": "s150r (costs as the study's network) from the study's start, its whole window, 832 zones",
    "h104": "the study's own problem: its network hyp150 from its start, T9 5, rho 1e8, to 1e-6 s, 104 zones",
    "h832": "the study's own problem at 832 zones",
    "h6656": "the study's own problem at 6,656 zones",
    "h104s": "the study's own problem to 1e-8 s ((d)'s window), 104 zones",
    "h832s": "the study's own problem to 1e-8 s, 832 zones",
    "h6656s": "the study's own problem to 1e-8 s, 6,656 zones",
}
# Targets of final: issue 16 for (a)-(c2) and the first (d); issue 29 for the study's problem (2x the
# study's own kernel on its problem); issue 38 for the study's own network on its whole window.
TARGETS_NS = {"a": 11.0, "b": 11.0, "c1": 11.0, "c2": 11.0, "d": 14.0, "d832": 12.0, "d6656": 11.0, "drpz24": 25.0,
              "h104": 14.0, "h832": 12.0, "h6656": 11.0}
REGIME_ORDER = ["a", "b", "c1", "c2", "d", "d832", "d6656", "drpz24", "r832", "h104", "h832", "h6656", "h104s", "h832s", "h6656s"]
# The full-burn regimes (the study's schedule): compared with the CPU after its reference finished.
FULL_BURN = {"d", "d832", "d6656", "drpz24", "r832", "h104", "h832", "h6656", "h104s", "h832s", "h6656s"}


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def summary_fields(path):
    s = read_json(path)
    if not s:
        return {"summary_missing": path}
    zones = s.get("zones") or 0
    return {
        "zones": zones,
        "steps_per_zone": s["steps"] / zones if zones else None,
        "failed_zones": s.get("failed_zones"),
        "zones_by_status": s.get("zones_by_status"),
        "integrate_seconds": s.get("integrate_seconds"),
        "ns_per_zone_step": s.get("ns_per_zone_step"),
        "kernel_variant": s.get("kernel_variant"),
        "threads": s.get("threads"),
        "max_mass_drift": s.get("max_mass_drift"),
        "result_hash": s.get("result_hash"),
    }


def compare_fields(path):
    c = read_json(path)
    if not c:
        return {"compare_missing": path}
    worst, where = 0.0, ""
    for name, d in c.get("datasets", {}).items():
        rel = d.get("max_rel")
        if isinstance(rel, (int, float)) and rel > worst:
            worst = rel
            where = f"{name} zone {d.get('worst_zone')} {d.get('worst_species') or ''}".strip()
    beyond = {n: d.get("beyond") for n, d in c.get("datasets", {}).items() if d.get("beyond")}
    return {"verdict": c.get("verdict"), "max_rel": worst, "worst": where, "beyond": beyond}


def record(cells, kind, pairs):
    rec = {"kind": kind}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key == "summary":
            rec.update(summary_fields(value))
        elif key == "compare_json":
            rec.update(compare_fields(value))
        elif key == "ns_runs":
            rec["ns_runs"] = [v for v in (number(t) for t in value.split()) if v is not None]
            rec["ns"] = statistics.median(rec["ns_runs"]) if rec["ns_runs"] else None
        elif key == "compare_rc":
            rec[key] = int(value) if value.strip().lstrip("-").isdigit() else None
        elif key != "cells":
            rec[key] = value
    with open(cells, "a") as f:
        f.write(json.dumps(rec) + "\n")


def load(cells):
    with open(cells) as f:
        return [json.loads(line) for line in f if line.strip()]


def floors(records):
    ceil = next((r for r in records if r["kind"] == "ceilings"), {})
    rates = {k: number(ceil.get(k)) for k in ("fp64_fma", "lds_read", "inner_term")}
    out = {}
    for r in records:
        if r["kind"] != "regime":
            continue
        work = {"flops": number(r.get("flops")), "bytes": number(r.get("bytes")), "terms": number(r.get("terms"))}
        parts = {}
        if rates["fp64_fma"] and work["flops"]:
            parts["fp64"] = 1e9 * work["flops"] / rates["fp64_fma"]
        if rates["lds_read"] and work["bytes"]:
            parts["LDS bytes"] = 1e9 * work["bytes"] / rates["lds_read"]
        if rates["inner_term"] and work["terms"]:
            parts["term rate"] = 1e9 * work["terms"] / rates["inner_term"]
        binding = max(parts, key=parts.get) if parts else None
        out[r["regime"]] = dict(work, parts=parts, floor_ns=parts.get(binding), binds=binding,
                                deck=r.get("deck"), network=r.get("network"))
    return out


def floor_line(records, regime):
    f = floors(records).get(regime)
    if not f:
        return "no work counted"
    parts = ", ".join(f"{k} {v:.2f}" for k, v in f["parts"].items())
    flops, terms, nbytes = (int(f[k]) if f[k] else 0 for k in ("flops", "terms", "bytes"))
    floor = f"floor {f['floor_ns']:.2f} ns ({f['binds']} binds; {parts})" if f["floor_ns"] else "no floor (no ceilings)"
    return f"{flops} flops, {terms} terms, {nbytes} B on chip per zone-step; {floor}"


def fmt(value, spec, missing="-"):
    return missing if value is None else format(value, spec)


def table(cells, csv_path, json_path):
    records = load(cells)
    meta = next((r for r in records if r["kind"] == "meta"), {})
    fl = floors(records)
    cpu = {r["regime"]: r for r in records if r["kind"] == "cpu"}
    compares = {r["tag"]: r for r in records if r["kind"] == "compare"}
    sensitivity = {r["regime"]: r for r in records if r["kind"] == "sensitivity"}
    rows = []
    for c in (r for r in records if r["kind"] == "cell"):
        if c.get("regime") in FULL_BURN and c.get("tag") in compares:  # compared after its CPU reference finished
            extra = compares[c["tag"]]
            c.update({k: extra.get(k) for k in ("compare_rc", "verdict", "max_rel", "worst", "beyond")})
        rows.append(c)
    order = {name: i for i, name in enumerate(REGIME_ORDER)}
    rows.sort(key=lambda c: order.get(c["regime"], 9))
    base = {c["regime"]: c.get("ns") for c in rows if c["row"] == "baseline"}
    lines = []
    fake = meta.get("fake") == "1"
    lines.append("== the ladder" + ("  (FAKE: CPU runs in place of the GPU, invented ceilings)" if fake else ""))
    for regime in sorted({c["regime"] for c in rows} | set(fl), key=lambda r: order.get(r, 9)):
        f, p = fl.get(regime, {}), cpu.get(regime, {})
        cpu_text = (f"CPU {fmt(p.get('ns'), '.1f')} ns ({p.get('threads')} threads, {p.get('zones')} zones"
                    f"{', ' + p['note'] if p.get('note') else ''})") if p else "CPU not run"
        lines.append(f"  {regime:6s} {REGIME_NAMES.get(regime, '')}: {f.get('deck', '')}; "
                     f"floor {fmt(f.get('floor_ns'), '.2f')} ns ({f.get('binds') or '-'}); {cpu_text}")
        sens = sensitivity.get(regime)
        if sens:
            lines.append(f"      the CPU against itself with dt_fraction + 1 ulp: max rel {fmt(sens.get('max_rel'), '.1e')}"
                         f" ({sens.get('worst') or '-'}), {'within' if sens.get('compare_rc') == 0 else 'NOT within'} 1e-12")
    head = ("regime", "variant", "zones", "steps", "runs", "ns/zs", "vs_base", "vs_cpu", "of_floor", "max_rel", "check")
    name_width = max([24] + [len(c["row"]) + 4 for c in rows])
    widths = (7, name_width, 7, 7, 4, 9, 7, 7, 8, 9, 5)
    lines.append("  ".join(h.ljust(w) if i < 2 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths))))
    notes = []
    csv_rows = []
    for c in rows:
        ns = c.get("ns")
        floor_ns = fl.get(c["regime"], {}).get("floor_ns")
        cpu_ns = cpu.get(c["regime"], {}).get("ns")
        b = base.get(c["regime"])
        rc = c.get("compare_rc")
        if rc not in (0, 1):  # no comparison made (a run or the compare failed): no difference to show
            c["max_rel"] = None
        check = "-" if rc is None else {0: "PASS", 1: "FAIL"}.get(rc, f"ERR{rc}")
        if c.get("skipped"):
            check = "skip"
        runs = str(len(c.get("ns_runs") or []))
        mark = ""
        if c.get("notes") or c.get("skipped") or (c.get("failed_zones") or 0) > 0:
            notes.append(c)
            mark = f"[{len(notes)}]"
        values = {
            "regime": c["regime"], "variant": c["row"] + mark, "zones": fmt(c.get("zones"), "d"),
            "steps": fmt(c.get("steps_per_zone"), ".0f"), "runs": runs, "ns/zs": fmt(ns, ".2f"),
            "vs_base": fmt(b / ns if b and ns else None, ".2f"), "vs_cpu": fmt(cpu_ns / ns if cpu_ns and ns else None, ".1f"),
            "of_floor": fmt(floor_ns / ns if floor_ns and ns else None, ".3f"), "max_rel": fmt(c.get("max_rel"), ".1e"),
            "check": check,
        }
        lines.append("  ".join(values[h].ljust(w) if i < 2 else values[h].rjust(w)
                               for i, (h, w) in enumerate(zip(head, widths))))
        csv_rows.append({
            "regime": c["regime"], "variant": c["row"], "kernel": c.get("variant"), "knobs": c.get("knobs", ""),
            "zones": c.get("zones"), "steps_per_zone": c.get("steps_per_zone"), "runs": runs,
            "ns_per_zone_step": ns, "ns_runs": " ".join(f"{v:.4g}" for v in c.get("ns_runs") or []),
            "zone_steps_per_s": 1e9 / ns if ns else None, "speedup_vs_baseline": b / ns if b and ns else None,
            "speedup_vs_cpu": cpu_ns / ns if cpu_ns and ns else None, "cpu_ns_per_zone_step": cpu_ns,
            "floor_ns": floor_ns, "fraction_of_floor": floor_ns / ns if floor_ns and ns else None,
            "max_rel_vs_cpu": c.get("max_rel"), "worst": c.get("worst"), "check": check,
            "failed_zones": c.get("failed_zones"), "header": c.get("header"),
            "notes": (c.get("notes") or "") + (c.get("skipped") or ""),
        })
    for i, c in enumerate(notes, 1):
        text = (c.get("notes") or "") + (c.get("skipped") or "")
        if (c.get("failed_zones") or 0) > 0:
            text += f" {c['failed_zones']} zones failed in the timed run {c.get('zones_by_status')}"
        lines.append(f"  [{i}] {c['regime']} {c['row']}: {text.strip()}")
    lines.append("  check: zoneode-compare --rtol 1e-12 --atol 1e-28 against the CPU backend on the same zones "
                 f"({meta.get('check_zones')} for a-c2, every zone of the full burns d, d832, drpz24, r832, h104, h832 and their s; d6656, h6656(s) by a run of d832's, h832(s)'s zones); runs: timed runs, the median shown")
    finals = {c["regime"]: c.get("ns") for c in rows if c["row"] == "final"}
    if finals:
        lines.append("  targets for final (issue 16; d, d832, d6656: issue 29; h104, h832, h6656: issue 38): " + "; ".join(
            f"{r} {fmt(ns, '.2f')} ns {'<=' if ns and ns <= TARGETS_NS[r] else 'NOT <='} {TARGETS_NS[r]:g}"
            for r, ns in finals.items() if r in TARGETS_NS))
    launches = {}  # row -> run header -> regimes: what each variant launched (blocks, threads, placement)
    for c in rows:
        if c.get("header"):
            launches.setdefault(c["row"], {}).setdefault(c["header"], []).append(c["regime"])
    for row, by_header in launches.items():
        for header, regimes in by_header.items():
            lines.append(f"  {row} [{' '.join(regimes)}]: {header}")
    zones = [r for r in records if r["kind"] == "zones"]
    if zones:
        lines.append("== zone-count sweep (c1, 463 steps per zone): ns per zone-step")
        for z in zones:
            lines.append(f"  {int(z['zones']):8d} zones  {z['variant']:9s} {fmt(z.get('ns_per_zone_step'), '10.2f')}")
    print("\n".join(lines))
    if csv_rows:
        with open(csv_path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(csv_rows[0]))
            writer.writeheader()
            writer.writerows(csv_rows)
    with open(json_path, "w") as f:
        json.dump({"meta": meta, "ceilings": next((r for r in records if r["kind"] == "ceilings"), {}),
                   "regimes": fl, "cpu": cpu, "cpu_one_ulp_sensitivity": sensitivity, "rows": csv_rows, "zone_sweep": zones}, f, indent=1)


def markdown(json_path, into=None):
    """The ladder as Markdown (docs/RESULTS.md); with `into`, replaces the block between
    '<!-- BEGIN ladder' and '<!-- END ladder -->' in that file."""
    data = json.load(open(json_path))
    meta, ceilings, regimes = data.get("meta", {}), data.get("ceilings", {}), data.get("regimes", {})
    out = [f"`scripts/gpu-ladder.sh` on {meta.get('device', '?')}, {meta.get('date', '?')}, commit "
           f"{meta.get('commit', '?')}, {meta.get('cores', '?')} host cores. Ceilings measured in the same run: fp64 FMA "
           f"{fmt(number(ceilings.get('fp64_fma')) / 1e12 if number(ceilings.get('fp64_fma')) else None, '.1f')} TFLOP/s, "
           f"LDS reads {fmt(number(ceilings.get('lds_read')) / 1e12 if number(ceilings.get('lds_read')) else None, '.1f')} TB/s, "
           f"the inner term {fmt(number(ceilings.get('inner_term')), '.3g')} terms/s. ns per zone-step, median of the timed "
           "runs; every cell compared with the CPU backend on the same zones (`zoneode-compare --rtol 1e-12 --atol 1e-28`).", ""]
    for regime, f in sorted(regimes.items()):
        out.append(f"- ({regime}) `{f.get('deck', '')}`: floor {fmt(f.get('floor_ns'), '.2f')} ns ({f.get('binds') or '-'})")
    out += ["", "| regime | variant | zones | ns per zone-step | vs baseline | vs CPU | of floor | max rel. diff. | check |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in data.get("rows", []):
        out.append(f"| {r['regime']} | {r['variant']} | {r['zones']} | {fmt(r.get('ns_per_zone_step'), '.2f')} | "
                   f"{fmt(r.get('speedup_vs_baseline'), '.2f')} | {fmt(r.get('speedup_vs_cpu'), '.1f')} | "
                   f"{fmt(r.get('fraction_of_floor'), '.3f')} | {fmt(r.get('max_rel_vs_cpu'), '.1e')} | {r.get('check')} |")
    text = "\n".join(out) + "\n"
    if not into:
        sys.stdout.write(text)
        return
    page = open(into).read()
    begin, end = page.index("<!-- BEGIN ladder"), page.index("<!-- END ladder -->")
    begin = page.index("\n", begin) + 1
    open(into, "w").write(page[:begin] + text + page[end:])


def main(argv):
    if len(argv) >= 3 and argv[1] == "record":
        record(argv[2], argv[3], argv[4:])
    elif len(argv) == 4 and argv[1] == "floor":
        print(floor_line(load(argv[2]), argv[3]))
    elif len(argv) == 5 and argv[1] == "table":
        table(argv[2], argv[3], argv[4])
    elif len(argv) in (3, 4) and argv[1] == "markdown":
        markdown(argv[2], argv[3] if len(argv) == 4 else None)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
