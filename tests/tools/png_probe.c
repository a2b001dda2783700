/* png_probe — reads a PNG with stb_image (Debian's libstb) and prints its size and pixel colours.
 * usage: png_probe FILE.png [X,Y ...]
 * prints "size W H", then "X,Y #rrggbb" per coordinate ("X,Y outside" when off the image).
 * Exit 0, or 1 when the file is not a PNG stb_image can decode. Built by tests/cli/cli_plot.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb/stb_image.h>

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: png_probe FILE.png [X,Y ...]\n");
        return 2;
    }
    FILE* f = fopen(argv[1], "rb");
    unsigned char sig[8] = {0};
    size_t got = f ? fread(sig, 1, 8, f) : 0;
    if (f) fclose(f);
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (got != 8 || memcmp(sig, png_sig, 8) != 0) {
        fprintf(stderr, "png_probe: %s: not a PNG (no PNG signature)\n", argv[1]);
        return 1;
    }
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(argv[1], &w, &h, &n, 3);
    if (!px) {
        fprintf(stderr, "png_probe: %s: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    printf("size %d %d\n", w, h);
    for (int i = 2; i < argc; i++) {
        int x = 0, y = 0;
        if (sscanf(argv[i], "%d,%d", &x, &y) != 2) {
            fprintf(stderr, "png_probe: bad coordinate '%s'\n", argv[i]);
            stbi_image_free(px);
            return 2;
        }
        if (x < 0 || y < 0 || x >= w || y >= h) {
            printf("%d,%d outside\n", x, y);
            continue;
        }
        const unsigned char* p = px + ((size_t)y * (size_t)w + (size_t)x) * 3;
        printf("%d,%d #%02x%02x%02x\n", x, y, p[0], p[1], p[2]);
    }
    stbi_image_free(px);
    return 0;
}
