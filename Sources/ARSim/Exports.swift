// ARSim's public API includes ARKit's math types, as ARKit's does through `simd`.
@_exported import ARSimMath
// ARKit re-exports Foundation (CGPoint, UUID, TimeInterval, ...); so does ARSim.
@_exported import Foundation
