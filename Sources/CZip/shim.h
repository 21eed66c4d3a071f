// CZip carries libzip (Debian's libzip-dev, pkg-config libzip) to the Record3D .r3d reader.
#include <zip.h>
