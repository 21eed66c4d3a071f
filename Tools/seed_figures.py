"""Checks issue 13's must-holds on every recording of an `arsim eval --json` report.

    python3 Tools/seed_figures.py REPORT.json

One line per recording with its figures and the must-holds it misses, then per must-hold how many
recordings miss it, and the gravity error's mean and worst. Standard library only. The limits:

- ATE (RMSE) <= 2 mm;
- gravity error (median over the frames after the first second) <= 0.15 degrees;
- frames with a pose >= 99.5%;
- planes: normal error median <= 0.3 degrees, offset median <= 5 mm, precision >= 0.95, each
  eligible ground-truth surface (>= 0.25 m2, seen >= 1 s) one anchor (an anchor stands for the
  surface it matches alone, or among several the one its classification names), a door matched by
  an anchor classified `door`;
- taps on detected planes: median <= 5 mm, p90 <= 1.5 cm.
"""

import json
import sys


def misses(recording):
    """The figures of one recording and the must-holds it misses."""
    tracking = recording["tracking"]
    planes = recording.get("planes") or {}
    taps = (recording.get("raycasts") or {}).get("onPlaneWorldError") or {}
    figures = {
        "ate_mm": tracking["ate"]["rmse"] * 1000,
        "rpe_mm": tracking["rpe"]["rmse"] * 1000,
        "gravity_deg": (tracking.get("gravityErrorDegrees") or {}).get("median"),
        "posed": tracking["withPose"] / tracking["frames"],
        "normal_deg": (planes.get("angleErrorDegrees") or {}).get("median"),
        "offset_mm": ((planes.get("offsetError") or {}).get("median") or 0) * 1000,
        "precision": planes.get("precision"),
        "tap_median_mm": (taps.get("median") or 0) * 1000,
        "tap_p90_mm": (taps.get("p90") or 0) * 1000,
    }
    missed = []
    if figures["ate_mm"] > 2:
        missed.append("ate")
    if figures["gravity_deg"] is None or figures["gravity_deg"] > 0.15:
        missed.append("gravity")
    if figures["posed"] < 0.995:
        missed.append("posed")
    if figures["normal_deg"] is not None and figures["normal_deg"] > 0.3:
        missed.append("normal")
    if figures["offset_mm"] > 5:
        missed.append("offset")
    if figures["precision"] is not None and figures["precision"] < 0.95:
        missed.append("precision")
    # Each anchor stands for the reference it matches alone, or, matching several (a door 3 cm proud
    # of its wall matches both within the evaluation's 5 cm), for the one its classification names.
    references = {reference["id"]: reference for reference in planes.get("references", [])}
    standing = {}
    for anchor in planes.get("detected", []):
        matches = anchor.get("matches", [])
        named = [m for m in matches if references[m]["label"] == anchor["classification"]]
        chosen = matches if len(matches) == 1 else named[:1]
        for m in chosen:
            standing[m] = standing.get(m, 0) + 1
    for reference in references.values():
        if not reference.get("eligible"):
            continue
        if standing.get(reference["id"], 0) != 1:
            missed.append(f"one-anchor:{reference['label']}")
        if reference["label"] == "door" and "door" not in [
            anchor["classification"]
            for anchor in planes.get("detected", [])
            if reference["id"] in anchor.get("matches", [])
        ]:
            missed.append("door-class")
    if figures["tap_median_mm"] > 5:
        missed.append("tap-median")
    if figures["tap_p90_mm"] > 15:
        missed.append("tap-p90")
    return figures, missed


def main():
    with open(sys.argv[1]) as file:
        report = json.load(file)
    counts = {}
    gravity = []
    ates = []
    rpes = []
    recordings = report["recordings"]
    failing = 0
    for recording in recordings:
        figures, missed = misses(recording)
        failing += 1 if missed else 0
        if figures["gravity_deg"] is not None:
            gravity.append(figures["gravity_deg"])
        ates.append(figures["ate_mm"])
        rpes.append(figures["rpe_mm"])
        for name in missed:
            key = name.split(":")[0]
            counts[key] = counts.get(key, 0) + 1
        shown = " ".join(
            f"{key}={value:.3f}" if isinstance(value, float) else f"{key}={value}"
            for key, value in figures.items()
        )
        print(f"{recording['recording']}: {shown}  misses: {', '.join(missed) or 'none'}")
    print(f"{failing} of {len(recordings)} recordings miss a must-hold")
    for key, count in sorted(counts.items()):
        print(f"  {key}: {count}")
    if recordings:
        print(
            f"ATE per recording: mean {sum(ates) / len(ates):.3f} mm, worst {max(ates):.3f} mm;"
            f" 1-frame RPE rmse: mean {sum(rpes) / len(rpes):.3f} mm"
        )
    if gravity:
        print(
            f"gravity error median per recording: mean {sum(gravity) / len(gravity):.4f} deg,"
            f" worst {max(gravity):.3f} deg"
        )


if __name__ == "__main__":
    main()
