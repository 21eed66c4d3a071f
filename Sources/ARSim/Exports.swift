// ARSim's public API includes ARKit's math types, as ARKit's does through `simd`.
@_exported import ARSimMath
