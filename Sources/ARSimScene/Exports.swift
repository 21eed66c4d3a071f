// ARSimScene's API is used together with ARSim's (sessions, anchors, raycasts), as RealityKit's is with
// ARKit's; importing ARSimScene brings both.
@_exported import ARSim

// RealityKit re-exports simd: code that imports only RealityKit uses `simd_int3`, `matrix_multiply`, ...
// and the CoreText names its text meshes take (CTTextAlignment, CTLineBreakMode).
#if os(Linux)
  @_exported import simd
  @_exported import CoreText
#endif
