// Apple's `CoreText` module, where Linux has none: `import CoreText` compiles unchanged for code that names
// the text-layout options RealityKit's text meshes take (`MeshResource.generateText`). Raw values are
// CoreText's. Glyphs themselves come from FreeType inside ARSimScene.

/// How lines of text are aligned (CoreText's `CTTextAlignment`).
public enum CTTextAlignment: UInt8, Sendable, Hashable {
  /// Flush left.
  case left = 0
  /// Flush right.
  case right = 1
  /// Centred.
  case center = 2
  /// Both edges flush (laid out flush left here).
  case justified = 3
  /// The script's natural alignment (left here).
  case natural = 4
}

/// How lines too long for their container are broken (CoreText's `CTLineBreakMode`).
public enum CTLineBreakMode: UInt8, Sendable, Hashable {
  /// Wrap at word boundaries.
  case byWordWrapping = 0
  /// Wrap at characters (at word boundaries here, then characters for words too long).
  case byCharWrapping = 1
  /// Cut at the container's edge.
  case byClipping = 2
  /// Cut at the start (cut at the container's edge here).
  case byTruncatingHead = 3
  /// Cut at the end (cut at the container's edge here).
  case byTruncatingTail = 4
  /// Cut in the middle (cut at the container's edge here).
  case byTruncatingMiddle = 5
}
