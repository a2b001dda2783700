#!/usr/bin/env bash
# The per-tick core references no allocator, no stdio/file access and no float libm:
# `nm -u` on every object of libblendsync_core.a must not name any of them.
# usage: core_symbols.sh LIBBLENDSYNC_CORE_A
set -euo pipefail
lib=$1
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }
objects=$(ar t "$lib" | wc -l)
[ "$objects" -ge 5 ] || { echo "FAIL: only $objects objects in $lib"; exit 1; }
forbidden='^(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|fopen|fclose|fread|fwrite|fseek|ftell|fgets|fputs|printf|fprintf|sprintf|snprintf|vsnprintf|puts|putchar|open|read|write|close|mmap|pthread_.*|sqrtf?|sinf?|cosf?|tanf?|asinf?|acosf?|atanf?|atan2f?|powf?|expf?|logf?|floorf?|ceilf?|fmodf?|roundf?|lroundf?|fix16_.*)$'
bad=$(nm -u "$lib" | awk '{print $NF}' | grep -E "$forbidden" | sort -u || true)
echo "checked $objects objects of $(basename "$lib")"
if [ -n "$bad" ]; then
  echo "FAIL: the per-tick core references:"
  echo "$bad"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "no allocator, stdio, file, thread, libm or libfixmath symbols"
echo "1 passed, 0 failed"
