// ARSim's public API includes ARKit's math types, as ARKit's does through `simd`.
@_exported import ARSimMath
// ARKit re-exports Foundation (CGPoint, UUID, TimeInterval, ...); so does ARSim.
@_exported import Foundation

// ARKit re-exports CoreGraphics (CGAffineTransform, CGImage, ...) and simd (simd_int3, ...); on Linux those
// are the package's modules.
#if os(Linux)
  @_exported import CoreGraphics
  @_exported import simd
#endif
