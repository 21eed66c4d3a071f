// Apple's `OSLog` framework: the same logging API as `os` (`Logger`, `OSLog`, `os_log`), so that
// `import OSLog` compiles unchanged. Apple's log-reading API (`OSLogStore`) has no counterpart here.
@_exported import os
