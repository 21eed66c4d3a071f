import Foundation

// `arsim-fuzz`: libFuzzer targets for every reader and decoder (see FuzzTargets.swift).
//
// Built by `Tools/fuzz.sh TARGET SECONDS` with `-sanitize=fuzzer,address -parse-as-library -D FUZZING`:
// libFuzzer provides `main` and calls `LLVMFuzzerTestOneInput` with each input; the target is named
// by the environment variable `ARSIM_FUZZ_TARGET`. In a normal build this file is the `main` of a
// small tool that runs files through a target (to reproduce a crash without the fuzzer):
// `arsim-fuzz TARGET FILE...`.

#if FUZZING
  @_cdecl("LLVMFuzzerTestOneInput")
  func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { [UInt8](UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzHarness.shared.run(bytes)
    return 0
  }
#else
  let arguments = CommandLine.arguments
  if arguments.count < 3 || FuzzTarget(rawValue: arguments[1]) == nil {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
    FileHandle.standardError.write(Data("usage: arsim-fuzz \(names) FILE...\n".utf8))
    exit(2)
  }
  let harness = FuzzHarness(target: FuzzTarget(rawValue: arguments[1])!)
  for path in arguments.dropFirst(2) {
    guard let data = FileManager.default.contents(atPath: path) else {
      FileHandle.standardError.write(Data("arsim-fuzz: \(path): cannot be read\n".utf8))
      exit(1)
    }
    print("\(path): \(harness.run([UInt8](data)))")
  }
  harness.removeFixture()
#endif
