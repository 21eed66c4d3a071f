#!/usr/bin/env python3
"""Makes ARSimAssets' test assets with Pixar's USD library (usd-core), and their expected values.

Run with the tools' environment and the asset requirements:

    ARSIM_EXTRA_REQUIREMENTS=Tools/requirements-assets.txt Tools/python.sh Tools/make_usd_fixtures.py \
        Tests/ARSimAssetsTests/Fixtures --copy-to Tests/ARSimSceneTests/Loading/Models

writes (and, with --copy-to, copies the few the entity-loading tests read from a bundle) the same small scene as scene.usda, scene.usdc and scene.usdz (nested transforms of every kind,
several meshes, common geometry prims, a reference to a second layer with an `over` on it, a class, an
animated prim), the variants centimetres.usdz (metersPerUnit 0.01) and zup.usdz (upAxis Z), two broken
archives (cycle.usdz, missing.usdz), and beside each loadable asset NAME.expected.json: the prim
hierarchy and, per gprim and for the whole stage, the world bounds that USD's own UsdGeom.BBoxCache
computes, converted to metres and y-up the way ARSim converts them.

    ... Tools/make_usd_fixtures.py --big OUT.usdz [--points N]

writes a benchmark asset (one mesh of N points, about 1 MB for the default N) that is not committed.
"""

import argparse
import json
import math
import os
import shutil
import sys
import tempfile

from pxr import Gf, Sdf, Usd, UsdGeom

START, END = 0.0, 48.0
SCENE_TEST_MODELS = ["scene.usdz", "scene.usdz.expected.json", "zup.usdz", "zup.usdz.expected.json",
                     "scene.usda", "parts.usda"]


def box_mesh(stage, path, size, translate=None, scale=None):
    """A closed box mesh of 8 points and 6 quads, half-sizes `size`, with optional ops."""
    mesh = UsdGeom.Mesh.Define(stage, path)
    sx, sy, sz = size
    points = [Gf.Vec3f(x * sx, y * sy, z * sz) for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)]
    mesh.CreatePointsAttr(points)
    mesh.CreateFaceVertexCountsAttr([4] * 6)
    mesh.CreateFaceVertexIndicesAttr(
        [0, 2, 3, 1, 4, 5, 7, 6, 0, 1, 5, 4, 2, 6, 7, 3, 0, 4, 6, 2, 1, 3, 7, 5])
    mesh.CreateExtentAttr(UsdGeom.PointBased.ComputeExtent(points))
    if translate is not None:
        mesh.AddTranslateOp().Set(Gf.Vec3d(*translate))
    if scale is not None:
        mesh.AddScaleOp().Set(Gf.Vec3f(*scale))
    return mesh


def ring_mesh(stage, path, segments, radius, height):
    """An open cylinder of `segments` quads (2 * segments points), for a mesh bigger than a box."""
    mesh = UsdGeom.Mesh.Define(stage, path)
    points = []
    for i in range(segments):
        a = 2 * math.pi * i / segments
        for y in (0.0, height):
            points.append(Gf.Vec3f(radius * math.cos(a), y, radius * math.sin(a)))
    indices = []
    for i in range(segments):
        j = (i + 1) % segments
        indices += [2 * i, 2 * j, 2 * j + 1, 2 * i + 1]
    mesh.CreatePointsAttr(points)
    mesh.CreateFaceVertexCountsAttr([4] * segments)
    mesh.CreateFaceVertexIndicesAttr(indices)
    mesh.CreateExtentAttr(UsdGeom.PointBased.ComputeExtent(points))
    return mesh


def make_parts(path):
    """The referenced layer: a cup (body and handle) as its default prim."""
    stage = Usd.Stage.CreateNew(path)
    cup = UsdGeom.Xform.Define(stage, "/Cup")
    stage.SetDefaultPrim(cup.GetPrim())
    ring_mesh(stage, "/Cup/Body", 24, 0.04, 0.1)
    box_mesh(stage, "/Cup/Handle", (0.005, 0.03, 0.01), translate=(0.05, 0.05, 0.0))
    stage.GetRootLayer().Save()


def make_scene(path, parts_name, meters_per_unit=1.0, up_axis="Y"):
    """The scene every loadable fixture holds; only the stage metadata differs between variants."""
    stage = Usd.Stage.CreateNew(path)
    UsdGeom.SetStageMetersPerUnit(stage, meters_per_unit)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z if up_axis == "Z" else UsdGeom.Tokens.y)
    stage.SetStartTimeCode(START)
    stage.SetEndTimeCode(END)
    stage.SetTimeCodesPerSecond(24)
    root = UsdGeom.Xform.Define(stage, "/Scene")
    stage.SetDefaultPrim(root.GetPrim())

    table = UsdGeom.Xform.Define(stage, "/Scene/Table")
    table.AddTranslateOp().Set(Gf.Vec3d(0.5, 0.0, -0.2))
    table.AddRotateYOp().Set(30.0)
    box_mesh(stage, "/Scene/Table/Top", (0.6, 0.025, 0.4), translate=(0, 0.7, 0))
    legs = UsdGeom.Xform.Define(stage, "/Scene/Table/Legs")
    legs.AddScaleOp().Set(Gf.Vec3f(1.0, 1.0, 1.0))
    for i, (x, z) in enumerate([(-0.55, -0.35), (0.55, -0.35), (-0.55, 0.35), (0.55, 0.35)]):
        box_mesh(stage, f"/Scene/Table/Legs/Leg{i + 1}", (0.02, 0.35, 0.02), translate=(x, 0.35, z))

    lamp = UsdGeom.Xform.Define(stage, "/Scene/Lamp")
    lamp.AddTranslateOp().Set(Gf.Vec3d(-0.8, 0.0, 0.3))
    lamp.AddOrientOp().Set(Gf.Quatf(Gf.Rotation(Gf.Vec3d(1, 1, 0).GetNormalized(), 20).GetQuat()))
    lamp.AddScaleOp().Set(Gf.Vec3f(2.0, 2.0, 2.0))
    bulb = UsdGeom.Sphere.Define(stage, "/Scene/Lamp/Bulb")
    bulb.CreateRadiusAttr(0.05)
    bulb.CreateExtentAttr([(-0.05, -0.05, -0.05), (0.05, 0.05, 0.05)])
    bulb.AddTranslateOp().Set(Gf.Vec3d(0, 0.4, 0))
    base = UsdGeom.Cube.Define(stage, "/Scene/Lamp/Base")
    base.CreateSizeAttr(0.1)
    base.CreateExtentAttr([(-0.05, -0.05, -0.05), (0.05, 0.05, 0.05)])
    base.AddRotateXYZOp().Set(Gf.Vec3f(10, 20, 30))
    stem = UsdGeom.Cylinder.Define(stage, "/Scene/Lamp/Stem")
    stem.CreateRadiusAttr(0.01)
    stem.CreateHeightAttr(0.35)
    stem.CreateAxisAttr(UsdGeom.Tokens.y)
    stem.CreateExtentAttr([(-0.01, -0.175, -0.01), (0.01, 0.175, 0.01)])
    stem.AddTransformOp().Set(Gf.Matrix4d().SetTranslate(Gf.Vec3d(0, 0.2, 0)))

    spinner = UsdGeom.Xform.Define(stage, "/Scene/Spinner")
    spinner.AddTranslateOp().Set(Gf.Vec3d(0.0, 1.5, 0.0))
    spin = spinner.AddRotateZOp()
    spin.Set(15.0, Usd.TimeCode(START))
    spin.Set(375.0, Usd.TimeCode(END))
    box_mesh(stage, "/Scene/Spinner/Blade", (0.3, 0.02, 0.05))

    # A prim whose xformOp:transform ignores its parent's transform.
    shelf = UsdGeom.Xform.Define(stage, "/Scene/Table/Shelf")
    shelf.SetResetXformStack(True)
    shelf.AddTransformOp().Set(
        Gf.Matrix4d().SetRotate(Gf.Rotation(Gf.Vec3d(0, 1, 0), -45)) * Gf.Matrix4d().SetTranslateOnly(
            Gf.Vec3d(0, 1.2, -1.0)))
    box_mesh(stage, "/Scene/Table/Shelf/Board", (0.4, 0.01, 0.1))

    cup = UsdGeom.Xform.Define(stage, "/Scene/Cup")
    cup.GetPrim().GetReferences().AddReference(f"./{parts_name}")
    cup.AddTranslateOp().Set(Gf.Vec3d(0.5, 0.725, -0.2))
    handle = UsdGeom.Xform(stage.OverridePrim("/Scene/Cup/Handle"))
    handle.ClearXformOpOrder()
    handle.AddTranslateOp().Set(Gf.Vec3d(-0.05, 0.05, 0.0))

    UsdGeom.Scope.Define(stage, "/Scene/Looks")
    stage.CreateClassPrim("/_Template")
    UsdGeom.Xform.Define(stage, "/_Template/Unused")
    stage.GetRootLayer().Save()


def expected(path, name):
    """The hierarchy and USD's own bounds of a composed stage, in metres and y-up."""
    stage = Usd.Stage.Open(path)
    mpu = UsdGeom.GetStageMetersPerUnit(stage)
    zup = UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.z
    time = Usd.TimeCode(stage.GetStartTimeCode())
    cache = UsdGeom.BBoxCache(time, [UsdGeom.Tokens.default_], useExtentsHint=False)

    def convert(r):
        lo, hi = r.GetMin(), r.GetMax()
        if zup:  # (x, y, z) -> (x, z, -y): the Z-up stage turned so that +z becomes +y
            lo, hi = Gf.Vec3d(lo[0], lo[2], -hi[1]), Gf.Vec3d(hi[0], hi[2], -lo[1])
        return {"min": [v * mpu for v in lo], "max": [v * mpu for v in hi]}

    prims = []
    for prim in stage.Traverse():
        entry = {
            "path": str(prim.GetPath()), "name": prim.GetName(), "type": str(prim.GetTypeName()),
            "children": [c.GetName() for c in prim.GetChildren()],
        }
        if prim.IsA(UsdGeom.Mesh):
            mesh = UsdGeom.Mesh(prim)
            entry["vertices"] = len(mesh.GetPointsAttr().Get(time))
            entry["faces"] = len(mesh.GetFaceVertexCountsAttr().Get(time))
        if prim.IsA(UsdGeom.Gprim):
            entry["worldBounds"] = convert(cache.ComputeWorldBound(prim).ComputeAlignedRange())
        animated = any(a.GetNumTimeSamples() > 1 for a in prim.GetAttributes())
        if animated:
            entry["animated"] = True
        prims.append(entry)
    # The animated prims' gprims at a few times: USD's bounds as the animation moves them.
    animated_bounds = []
    for entry in prims:
        if not entry.get("animated"):
            continue
        for prim in Usd.PrimRange(stage.GetPrimAtPath(entry["path"])):
            if not prim.IsA(UsdGeom.Gprim):
                continue
            for code in (START, 12.0, 24.0, 30.5, END):
                at = UsdGeom.BBoxCache(Usd.TimeCode(code), [UsdGeom.Tokens.default_], useExtentsHint=False)
                animated_bounds.append({
                    "path": str(prim.GetPath()),
                    "time": (code - stage.GetStartTimeCode()) / stage.GetTimeCodesPerSecond(),
                    "worldBounds": convert(at.ComputeWorldBound(prim).ComputeAlignedRange()),
                })
    roots = [c.GetName() for c in stage.GetPseudoRoot().GetChildren()]
    return {
        "file": name, "metersPerUnit": mpu, "upAxis": "Z" if zup else "Y",
        "startTimeCode": stage.GetStartTimeCode(), "endTimeCode": stage.GetEndTimeCode(),
        "timeCodesPerSecond": stage.GetTimeCodesPerSecond(), "roots": roots, "prims": prims,
        "animatedBounds": animated_bounds,
        "worldBounds": convert(cache.ComputeWorldBound(stage.GetPseudoRoot()).ComputeAlignedRange()),
    }


def zip_layers(out, files):
    """A usdz of `files` [(path on disk, path in the archive)], the first being the root layer."""
    writer = Sdf.ZipFileWriter.CreateNew(out)
    for disk, inside in files:
        writer.AddFile(disk, inside)
    writer.Save()


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.write("\n")


def make_fixtures(out):
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp()
    try:
        make_parts(os.path.join(out, "parts.usda"))
        for ext in ("usda", "usdc"):
            make_scene(os.path.join(out, f"scene.{ext}"), "parts.usda")
            write_json(os.path.join(out, f"scene.{ext}.expected.json"),
                       expected(os.path.join(out, f"scene.{ext}"), f"scene.{ext}"))
        variants = [("scene", 1.0, "Y"), ("centimetres", 0.01, "Y"), ("zup", 1.0, "Z")]
        for name, mpu, up in variants:
            # Inside the archive: a binary root layer referencing a binary parts layer.
            make_parts(os.path.join(work, "parts.usdc"))
            make_scene(os.path.join(work, f"{name}.usdc"), "parts.usdc", mpu, up)
            usdz = os.path.join(out, f"{name}.usdz")
            zip_layers(usdz, [(os.path.join(work, f"{name}.usdc"), f"{name}.usdc"),
                              (os.path.join(work, "parts.usdc"), "parts.usdc")])
            write_json(os.path.join(out, f"{name}.usdz.expected.json"), expected(usdz, f"{name}.usdz"))

        # Broken archives: a reference cycle, and a reference to a layer the archive lacks.
        a, b = os.path.join(work, "a.usda"), os.path.join(work, "b.usda")
        for this, other in ((a, "./b.usda"), (b, "./a.usda")):
            layer = Sdf.Layer.CreateNew(this)
            prim = Sdf.CreatePrimInLayer(layer, "/Root")
            prim.specifier = Sdf.SpecifierDef
            prim.typeName = "Xform"
            prim.referenceList.Prepend(Sdf.Reference(other, "/Root"))
            layer.defaultPrim = "Root"
            layer.Save()
        zip_layers(os.path.join(out, "cycle.usdz"), [(a, "a.usda"), (b, "b.usda")])
        zip_layers(os.path.join(out, "missing.usdz"), [(a, "a.usda")])
    finally:
        shutil.rmtree(work)


def make_big(out, count):
    """One mesh of `count` points on a noisy sphere (a benchmark asset, about 12 bytes a point)."""
    work = tempfile.mkdtemp()
    try:
        layer = os.path.join(work, "big.usdc")
        stage = Usd.Stage.CreateNew(layer)
        root = UsdGeom.Xform.Define(stage, "/Big")
        stage.SetDefaultPrim(root.GetPrim())
        mesh = UsdGeom.Mesh.Define(stage, "/Big/Scan")
        points = []
        golden = math.pi * (3 - math.sqrt(5))
        for i in range(count):
            y = 1 - 2 * (i + 0.5) / count
            r = math.sqrt(1 - y * y) * (1 + 0.01 * math.sin(i * 0.37))
            points.append(Gf.Vec3f(r * math.cos(golden * i), y, r * math.sin(golden * i)))
        mesh.CreatePointsAttr(points)
        faces = count // 3
        mesh.CreateFaceVertexCountsAttr([3] * faces)
        mesh.CreateFaceVertexIndicesAttr(list(range(faces * 3)))
        mesh.CreateExtentAttr(UsdGeom.PointBased.ComputeExtent(points))
        stage.GetRootLayer().Save()
        zip_layers(out, [(layer, "big.usdc")])
    finally:
        shutil.rmtree(work)
    print(f"{out}: {os.path.getsize(out)} bytes, {count} points", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", help="fixture folder")
    parser.add_argument("--copy-to", help="also copy the scene-loading tests' models here")
    parser.add_argument("--big", help="write one benchmark usdz here instead")
    parser.add_argument("--points", type=int, default=88000, help="points of the benchmark mesh (88000: about 1 MB)")
    args = parser.parse_args()
    if args.big:
        make_big(args.big, args.points)
    elif args.out:
        make_fixtures(args.out)
        if args.copy_to:
            os.makedirs(args.copy_to, exist_ok=True)
            for name in SCENE_TEST_MODELS:
                shutil.copyfile(os.path.join(args.out, name), os.path.join(args.copy_to, name))
    else:
        parser.error("name a fixture folder or --big FILE")


if __name__ == "__main__":
    main()
