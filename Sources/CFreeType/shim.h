// FreeType's headers are reached through macros (FT_FREETYPE_H, ...); this names the ones ARSimScene
// uses so that a module map can import them.
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
