// The one header through which loaderx includes <windows.h>. It defines
// `WIN32_LEAN_AND_MEAN` (no Winsock, RPC, shell or multimedia headers) and
// `NOMINMAX` (no `min`/`max` macros to break `std::min` and
// `std::numeric_limits<T>::max()`) before the first inclusion, so every
// Windows source sees the same declarations whatever it included before.
//
// It also undefines the ANSI/Unicode switching macros that share a name
// with loaderx's own methods (`Vfs::CreateDirectory`,
// `Vfs::RemoveDirectory`): left defined, they would rename those methods in
// every file that includes <windows.h>. loaderx calls the wide-character
// functions (`CreateDirectoryW`, ...) by their full names.

#ifndef LOADERX_VFS_WIN32_WINDOWS_INCLUDE_H_
#define LOADERX_VFS_WIN32_WINDOWS_INCLUDE_H_

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif

#include <windows.h>

#undef CreateDirectory
#undef RemoveDirectory

#endif  // LOADERX_VFS_WIN32_WINDOWS_INCLUDE_H_
