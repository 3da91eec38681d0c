"""Jobs of a campaign for scripts/report.py: what was submitted (jobs.txt, written by
slurm/scaling.sh), what Slurm accounted for it (accounting.txt, written by slurm/report.sbatch
from sacct or scontrol), and what each attempt of each run did (runs/*/jobs.txt, written by
slurm/run.sbatch). Every submitted job gets one row: finished, failed or missing; none is dropped.
"""

import os
import re

JOB_COLUMNS = ("campaign", "job", "ranks", "nodes", "repeat", "status", "state", "exit_code", "attempts",
               "stopped_75_and_resumed", "elapsed_seconds", "elapsed_source", "gpus", "gpu_hours", "energy_joules",
               "summary")


class AccountingError(Exception):
    pass


def read_submitted(folder):
    """campaign jobs.txt: JOB RANKS NODES [REPEAT] per line; [] when absent (summaries only)."""
    path = os.path.join(folder, "jobs.txt")
    if not os.path.isfile(path):
        return []
    jobs = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if len(words) < 3 or not words[1].isdigit() or not words[2].isdigit():
                raise AccountingError(f"{path}: line {number}: expected 'JOB RANKS NODES [REPEAT]', got {line.strip()!r}")
            jobs.append({"job": words[0], "ranks": int(words[1]), "nodes": int(words[2]),
                         "repeat": words[3] if len(words) > 3 else "1"})
    return jobs


def gpus_of_tres(tres):
    """gres/gpu=8 (or gres/gpu:mi250=8) in an AllocTRES/TRES string; 0 when none."""
    match = re.search(r"gres/gpu(?::[^=,]*)?=(\d+)", tres or "")
    return int(match.group(1)) if match else 0


def read_accounting(folder):
    """accounting.txt: a '# source:' line, then sacct -P's header and rows (JobID|...|NNodes).
    Returns {job id: {state, exit_code, elapsed_seconds, gpus, energy_joules, records}}, and the source."""
    path = os.path.join(folder, "accounting.txt")
    if not os.path.isfile(path):
        return {}, "none"
    source, header, records = "unknown", None, {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if line.startswith("# source:"):
                source = line[len("# source:"):].strip()
                continue
            if not line.strip():
                continue
            cells = line.split("|")
            if header is None:
                header = cells
                for key in ("JobID", "State", "ExitCode", "ElapsedRaw"):
                    if key not in header:
                        raise AccountingError(f"{path}: line {number}: header lacks '{key}' (sacct -P -o JobID,State,ExitCode,ElapsedRaw,...)")
                continue
            if len(cells) != len(header):
                raise AccountingError(f"{path}: line {number}: {len(cells)} fields, the header has {len(header)}")
            row = dict(zip(header, cells))
            try:
                elapsed = int(row["ElapsedRaw"]) if row["ElapsedRaw"] else 0
                energy = int(row["ConsumedEnergyRaw"]) if row.get("ConsumedEnergyRaw") else None
                # A site without energy gathering (AcctGatherEnergyType=acct_gather_energy/none)
                # reports 0 J for every job: not a measurement.
                energy = energy or None
            except ValueError:
                raise AccountingError(f"{path}: line {number}: ElapsedRaw/ConsumedEnergyRaw not integers: {line!r}")
            entry = records.setdefault(row["JobID"], {"elapsed_seconds": 0, "energy_joules": None, "records": 0,
                                                     "gpus": 0, "state": "", "exit_code": ""})
            # sacct -D lists each attempt of a requeued job: times and energy add up, the last state wins.
            entry["records"] += 1
            entry["elapsed_seconds"] += elapsed
            if energy is not None:
                entry["energy_joules"] = (entry["energy_joules"] or 0) + energy
            entry["gpus"] = max(entry["gpus"], gpus_of_tres(row.get("AllocTRES", "")))
            entry["state"] = row["State"].split()[0] if row["State"] else ""
            entry["exit_code"] = row["ExitCode"]
    return records, source


def read_attempts(folder):
    """runs/<job>-<label>/jobs.txt of slurm/run.sbatch: per job, its attempts in order as
    (attempt, status, start, end, gpus)."""
    attempts = {}
    runs = os.path.join(folder, "runs")
    if not os.path.isdir(runs):
        return attempts
    for name in sorted(os.listdir(runs)):
        path = os.path.join(runs, name, "jobs.txt")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                words = line.split()
                if len(words) < 5 or not all(w.lstrip("-").isdigit() for w in words[1:5]):
                    continue  # a jobs.txt of an older run.sbatch (JOB STATUS): no attempt data
                gpus = int(words[7]) if len(words) > 7 and words[7].isdigit() else 0
                attempts.setdefault(words[0], []).append(
                    {"attempt": int(words[1]), "status": int(words[2]), "start": int(words[3]), "end": int(words[4]), "gpus": gpus})
    return attempts


def job_rows(name, folder, runs):
    """One row per submitted job (JOB_COLUMNS); runs are the loaded summaries of this campaign."""
    submitted = read_submitted(folder)
    accounting, source = read_accounting(folder)
    attempts = read_attempts(folder)
    by_job = {}
    for run in runs:
        job = os.path.basename(run["file"]).split("-", 1)[0]
        by_job[job] = run
    rows = []
    for job in submitted:
        record = accounting.get(job["job"])
        chain = sorted(attempts.get(job["job"], []), key=lambda a: a["attempt"])
        run = by_job.get(job["job"])
        row = {"campaign": name, "job": job["job"], "ranks": job["ranks"], "nodes": job["nodes"], "repeat": job["repeat"],
               "state": record["state"] if record else "", "exit_code": record["exit_code"] if record else "",
               "attempts": len(chain) if chain else (record["records"] if record else 0),
               "stopped_75_and_resumed": "yes" if any(a["status"] == 75 for a in chain[:-1]) else "no",
               "summary": os.path.basename(run["file"]) if run else ""}
        if record and (record["elapsed_seconds"] or record["state"] not in ("PENDING", "")):
            row["elapsed_seconds"], row["elapsed_source"] = record["elapsed_seconds"], source.split()[0]
            row["gpus"], row["energy_joules"] = record["gpus"], record["energy_joules"]
        elif chain:
            row["elapsed_seconds"] = sum(a["end"] - a["start"] for a in chain)
            row["elapsed_source"] = "run.sbatch"
            row["gpus"], row["energy_joules"] = chain[-1]["gpus"], None
        else:
            row["elapsed_seconds"] = row["elapsed_source"] = row["gpus"] = row["energy_joules"] = None
        row["gpu_hours"] = (row["elapsed_seconds"] * row["gpus"] / 3600.0
                            if row["elapsed_seconds"] is not None and row["gpus"] else None)
        last_status = chain[-1]["status"] if chain else None
        if run is not None:
            row["status"] = "finished, failed zones" if last_status == 3 else "finished"
        elif last_status == 75:
            row["status"] = "failed: stopped early (75), not resumed"
        elif last_status is not None:
            row["status"] = f"failed: exit {last_status}"
        elif record:
            row["status"] = f"missing: {record['state'] or 'no state'}"
        else:
            row["status"] = "missing: no run and no accounting record"
        rows.append(row)
    known = {job["job"] for job in submitted}
    for job, run in sorted(by_job.items()):
        if submitted and job not in known:
            rows.append({"campaign": name, "job": job, "ranks": run["ranks"], "status": "finished, not in jobs.txt",
                         "summary": os.path.basename(run["file"])})
    return rows, source
