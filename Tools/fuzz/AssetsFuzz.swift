// libFuzzer entry point for ARSimAssets' readers (built by Tools/fuzz-assets.sh, not by SwiftPM):
// the first byte picks the reader (usdz, usdc, usda), the rest is the file. Any input must load or
// throw an AssetError; a crash, a trap or a hang is a finding.
import ARSimAssets

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  let fileExtension = ["usdz", "usdc", "usda"][Int(data[0]) % 3]
  _ = try? ModelAsset(bytes: bytes, file: "fuzz.\(fileExtension)", fileExtension: fileExtension)
  return 0
}
