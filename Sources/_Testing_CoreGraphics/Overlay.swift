// Swift Testing on Linux declares a cross-import overlay with CoreGraphics (its toolchain's
// `Testing.swiftcrossimport/CoreGraphics.swiftoverlay` names `_Testing_CoreGraphics`), but ships no such
// module: it exists only on Apple platforms, where it makes `CGImage` attachable. Once this package declares
// a `CoreGraphics` module on Linux, every file that imports Testing and CoreGraphics (directly or through
// ARSim's re-export) asks for the overlay. This empty module answers that; it imports nothing, so it adds no
// dependency on Testing. The CoreGraphics target depends on it so that it is always built beside it.
