// ARSimScene's API is used together with ARSim's (sessions, anchors, raycasts), as RealityKit's is with
// ARKit's; importing ARSimScene brings both.
@_exported import ARSim
