// ARSimEval's values are built from ARSimMath's types (`RigidTransform`, `simd_quatd`, `SIMD3<Double>`).
@_exported import ARSimMath
