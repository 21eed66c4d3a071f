// swift-tools-version:6.0
import PackageDescription

// OpenCV and Eigen come from Debian (`libopencv-dev`, `libeigen3-dev`) through
// pkg-config. Only CVision touches them; everything above it sees a plain C header.
// OpenCV's pkg-config name is `arsim-opencv4`, which Tools/setup.sh writes from Debian's `opencv4`:
// its include path, and only the modules CVision links (calib3d, features2d, video, imgproc, core),
// so a process does not load all of Debian's OpenCV modules at start-up (366 shared libraries; SwiftPM
// links what the file lists, --as-needed cannot drop them). libopencv_imgcodecs is loaded on first use.
// libzip (`libzip-dev`) reads Record3D's .r3d archives; it has a plain C API of its own.
// libdeflate (`libdeflate-dev`) and libjpeg-turbo (`libjpeg-dev`) decode PNG and JPEG inside CVision
// (faster than OpenCV's codecs, and silent: no stderr redirection while other threads run).
// OpenEXR's C library (`libopenexr-dev`, pkg-config `OpenEXR`; only its C core, libOpenEXRCore, is
// linked, through the unversioned name that package installs) decodes and encodes depth EXRs
// inside CVision, from memory; its headers are in the compiler's default include path.
// FFmpeg's libraries (`libavformat-dev`, `libavcodec-dev`, `libswscale-dev`) read and write video
// inside CVision: grey frames straight from the decoded luma, HEVC written at a set quality. Their
// headers are in the compiler's default include path; the libraries are not linked but loaded on
// the first video opened (ffmpeg.cpp): libavformat and libavcodec bring about 110 more shared
// libraries, which every process paid at start-up, though replaying an image recording uses none.

// Combine: Apple platforms have the framework; Linux has none, so the package brings the subset AR
// apps use as a target named `Combine`, so that `import Combine` compiles unchanged. The target is
// declared only when the manifest is evaluated on Linux: on Apple platforms it does not exist at all,
// so no module of ours can shadow Apple's framework there (a target that merely is not linked would
// still be built into the module search path). Dependencies on it also carry a Linux condition.
#if os(Linux)
  let combineTargets: [Target] = [
    .target(name: "Combine"),
    .testTarget(name: "CombineTests", dependencies: ["Combine"]),
  ]
  let combineProducts: [Product] = [.library(name: "Combine", targets: ["Combine"])]
  let combine: [Target.Dependency] = [.target(name: "Combine", condition: .when(platforms: [.linux]))]
#else
  let combineTargets: [Target] = []
  let combineProducts: [Product] = []
  let combine: [Target.Dependency] = []
#endif

// simd, os, CoreGraphics and CoreText: Apple's modules of those names, which Linux lacks, declared the same way and
// for the same reason as Combine (Linux only, so nothing shadows Apple's modules). `simd` re-exports
// ARSimMath and adds the names it lacks; ARSimScene re-exports `simd`, as RealityKit does. `os` is Apple's
// logging, with the Clang submodules `os.log` and `os.signpost` that real files import, and `OSLog` its
// newer framework name. `CoreGraphics` re-exports Foundation's CGFloat/CGPoint/CGSize/CGRect and adds CGAffineTransform,
// CGColor and CGImage; ARSim re-exports it, as ARKit does. `CoreText` has the text-layout options of
// RealityKit's text meshes; ARSimScene re-exports it. `_Testing_CoreGraphics` is empty: Swift Testing's
// cross-import overlay for CoreGraphics, which Linux toolchains name but do not ship (see its source).
#if os(Linux)
  let shimTargets: [Target] = [
    .target(name: "simd", dependencies: ["ARSimMath"]),
    // `import os.log` and `import os.signpost` name Clang submodules of `os`: see Submodules/module.modulemap.
    .systemLibrary(name: "COSSubmodules", path: "Sources/os/Submodules"),
    .target(name: "os", dependencies: ["COSSubmodules"], exclude: ["Submodules", "OSLog"]),
    .target(name: "OSLog", dependencies: ["os"], path: "Sources/os/OSLog"),
    .target(name: "CoreGraphics", dependencies: ["_Testing_CoreGraphics"]),
    .target(name: "_Testing_CoreGraphics"),
    .target(name: "CoreText"),
  ]
  let shimProducts: [Product] = [
    .library(name: "simd", targets: ["simd"]), .library(name: "os", targets: ["os"]),
    .library(name: "OSLog", targets: ["OSLog"]),
    .library(name: "CoreGraphics", targets: ["CoreGraphics"]),
    .library(name: "CoreText", targets: ["CoreText"]),
  ]
  let simdShim: [Target.Dependency] = [.target(name: "simd", condition: .when(platforms: [.linux]))]
  let osShim: [Target.Dependency] = [
    .target(name: "os", condition: .when(platforms: [.linux])),
    .target(name: "OSLog", condition: .when(platforms: [.linux])),
  ]
  let coreGraphicsShim: [Target.Dependency] = [
    .target(name: "CoreGraphics", condition: .when(platforms: [.linux]))
  ]
  let coreTextShim: [Target.Dependency] = [.target(name: "CoreText", condition: .when(platforms: [.linux]))]
#else
  let shimTargets: [Target] = []
  let shimProducts: [Product] = []
  let simdShim: [Target.Dependency] = []
  let osShim: [Target.Dependency] = []
  let coreGraphicsShim: [Target.Dependency] = []
  let coreTextShim: [Target.Dependency] = []
#endif

let package = Package(
  name: "ARSim",
  products: [
    .library(name: "ARSim", targets: ["ARSim"]),
    .library(name: "ARSimMath", targets: ["ARSimMath"]),
    .library(name: "ARSimSynth", targets: ["ARSimSynth"]),
    .library(name: "ARSimEval", targets: ["ARSimEval"]),
    .library(name: "ARSimScene", targets: ["ARSimScene"]),
    .library(name: "ARSimAssets", targets: ["ARSimAssets"]),
    .library(name: "ARSimRun", targets: ["ARSimRun"]),
    .executable(name: "arsim", targets: ["arsim"]),
  ] + combineProducts + shimProducts,
  targets: [
    .systemLibrary(
      name: "COpenCV",
      pkgConfig: "arsim-opencv4",
      providers: [.apt(["libopencv-dev"])]
    ),
    .systemLibrary(
      name: "CEigen",
      pkgConfig: "eigen3",
      providers: [.apt(["libeigen3-dev"])]
    ),
    .systemLibrary(
      name: "CZip",
      pkgConfig: "libzip",
      providers: [.apt(["libzip-dev"])]
    ),
    .systemLibrary(
      name: "CDeflate",
      pkgConfig: "libdeflate",
      providers: [.apt(["libdeflate-dev"])]
    ),
    .systemLibrary(
      name: "CJPEG",
      pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg-dev"])]
    ),
    // FreeType (`libfreetype-dev`) gives ARSimScene's text meshes their glyph outlines.
    .systemLibrary(
      name: "CFreeType",
      pkgConfig: "freetype2",
      providers: [.apt(["libfreetype-dev"])]
    ),
    .target(
      name: "CVision",
      dependencies: ["COpenCV", "CEigen", "CDeflate", "CJPEG"],
      cxxSettings: [.define("EIGEN_MPL2_ONLY")],
      linkerSettings: [.linkedLibrary("m"), .linkedLibrary("OpenEXRCore")]
    ),
    .target(name: "ARSimMath"),
    .target(name: "ARSim", dependencies: ["ARSimMath", "CVision", "CZip"] + coreGraphicsShim + simdShim),
    .target(name: "ARSimSynth", dependencies: ["ARSim", "ARSimMath"]),
    .target(
      name: "ARSimScene",
      dependencies: ["ARSim", "ARSimAssets", "CFreeType"] + combine + simdShim + coreTextShim),
    .target(name: "ARSimAssets", dependencies: ["ARSimMath"]),
    .executableTarget(name: "assets-bench", dependencies: ["ARSimAssets", "ARSimScene"]),
    .testTarget(
      name: "ARSimAssetsTests", dependencies: ["ARSimAssets", "ARSimTestSupport"],
      resources: [.copy("Fixtures")]),
    .target(name: "ARSimRun", dependencies: ["ARSim", "ARSimEval", "ARSimSynth"]),
    .executableTarget(name: "arsim", dependencies: ["ARSim", "ARSimSynth", "ARSimEval", "ARSimRun"]),
    // libFuzzer targets for the readers (Tools/fuzz.sh); a plain build makes a file-replay tool.
    .executableTarget(
      name: "arsim-fuzz", dependencies: ["ARSim", "ARSimSynth", "ARSimAssets"], path: "Sources/ARSimFuzz"),
    .testTarget(name: "ARSimMathTests", dependencies: ["ARSimMath"]),
    .target(name: "ARSimEval", dependencies: ["ARSimMath"]),
    .testTarget(name: "ARSimEvalTests", dependencies: ["ARSimEval"]),
    .target(name: "ARSimTestSupport", dependencies: ["ARSim"], path: "Tests/ARSimTestSupport"),
    .testTarget(name: "ARSimTests", dependencies: ["ARSim", "ARSimEval", "ARSimTestSupport"]),
    .testTarget(name: "ARSimRunTests", dependencies: ["ARSimRun", "ARSimEval", "ARSim", "ARSimTestSupport"]),
    .testTarget(name: "arsimTests", dependencies: ["arsim", "ARSim", "ARSimRun", "ARSimTestSupport"]),
    .testTarget(name: "ARSimSynthTests", dependencies: ["ARSimSynth", "ARSim", "ARSimTestSupport"]),
    .testTarget(
      name: "ARSimSceneTests",
      dependencies: ["ARSimScene", "ARSim", "ARSimEval", "ARSimTestSupport"] + combine + simdShim + osShim
        + coreGraphicsShim + coreTextShim,
      resources: [.process("Loading/Models")]),
  ] + combineTargets + shimTargets,
  swiftLanguageModes: [.v6],
  cxxLanguageStandard: .cxx17
)
