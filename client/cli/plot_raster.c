/* plot_raster.c — canvas, shapes, text, colour mixing and the PNG writer of `blendsync plot`
 * (see plot_raster.h). Drawing uses floats; this is the CLI edge, never the core. */
#include "plot_raster.h"
#include "platform.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb/stb_image_write.h>

#include "plot_font.h"

#define MAX_SIDE 16384

int bsync_plot_canvas_init(bsync_plot_canvas* c, int w, int h, bsync_plot_rgb bg) {
    c->w = 0;
    c->h = 0;
    c->px = NULL;
    if (w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE) return -1;
    size_t n = (size_t)w * (size_t)h;
    uint8_t* px = malloc(n * 3);
    if (!px) return -1;
    for (size_t i = 0; i < n; i++) {
        px[3 * i] = bg.r;
        px[3 * i + 1] = bg.g;
        px[3 * i + 2] = bg.b;
    }
    c->w = w;
    c->h = h;
    c->px = px;
    return 0;
}

void bsync_plot_canvas_free(bsync_plot_canvas* c) {
    free(c->px);
    c->px = NULL;
    c->w = c->h = 0;
}

int bsync_plot_canvas_copy(bsync_plot_canvas* dst, const bsync_plot_canvas* src) {
    bsync_plot_rgb black = {0, 0, 0};
    if (bsync_plot_canvas_init(dst, src->w, src->h, black) != 0) return -1;
    memcpy(dst->px, src->px, (size_t)src->w * (size_t)src->h * 3);
    return 0;
}

bsync_plot_rgb bsync_plot_get(const bsync_plot_canvas* c, int x, int y) {
    bsync_plot_rgb col = {0, 0, 0};
    if (x < 0 || y < 0 || x >= c->w || y >= c->h) return col;
    const uint8_t* p = c->px + ((size_t)y * (size_t)c->w + (size_t)x) * 3;
    col.r = p[0];
    col.g = p[1];
    col.b = p[2];
    return col;
}

void bsync_plot_set(bsync_plot_canvas* c, int x, int y, bsync_plot_rgb col) {
    if (x < 0 || y < 0 || x >= c->w || y >= c->h) return;
    uint8_t* p = c->px + ((size_t)y * (size_t)c->w + (size_t)x) * 3;
    p[0] = col.r;
    p[1] = col.g;
    p[2] = col.b;
}

/* sRGB byte -> linear light (IEC 61966-2-1), precomputed: v/255/12.92 up to 0.04045, else
 * ((v/255 + 0.055)/1.055)^2.4. */
static const float k_srgb_to_linear[256] = {
    0.0f, 0.000303526984f, 0.000607053967f, 0.000910580951f, 0.00121410793f, 0.00151763492f,
    0.0018211619f, 0.00212468888f, 0.00242821587f, 0.00273174285f, 0.00303526984f, 0.00334653576f,
    0.00367650732f, 0.00402471702f, 0.00439144204f, 0.00477695348f, 0.0051815167f, 0.00560539162f,
    0.00604883302f, 0.00651209079f, 0.00699541019f, 0.00749903204f, 0.00802319299f, 0.00856812562f,
    0.0091340587f, 0.00972121732f, 0.010329823f, 0.010960094f, 0.0116122452f, 0.0122864884f,
    0.0129830323f, 0.013702083f, 0.0144438436f, 0.0152085144f, 0.0159962934f, 0.0168073758f,
    0.0176419545f, 0.0185002201f, 0.019382361f, 0.0202885631f, 0.0212190104f, 0.0221738848f,
    0.0231533662f, 0.0241576324f, 0.0251868596f, 0.0262412219f, 0.0273208916f, 0.0284260395f,
    0.0295568344f, 0.0307134437f, 0.0318960331f, 0.0331047666f, 0.0343398068f, 0.0356013149f,
    0.0368894504f, 0.0382043716f, 0.0395462353f, 0.0409151969f, 0.0423114106f, 0.0437350293f,
    0.0451862044f, 0.0466650863f, 0.0481718242f, 0.049706566f, 0.0512694584f, 0.052860647f,
    0.0544802764f, 0.05612849f, 0.0578054302f, 0.0595112382f, 0.0612460542f, 0.0630100177f,
    0.0648032667f, 0.0666259386f, 0.0684781698f, 0.0703600957f, 0.0722718507f, 0.0742135684f,
    0.0761853815f, 0.0781874218f, 0.0802198203f, 0.0822827071f, 0.0843762115f, 0.086500462f,
    0.0886555863f, 0.0908417112f, 0.0930589628f, 0.0953074666f, 0.0975873471f, 0.0998987282f,
    0.102241733f, 0.104616484f, 0.107023103f, 0.109461711f, 0.111932428f, 0.114435374f,
    0.116970668f, 0.119538428f, 0.122138772f, 0.124771818f, 0.12743768f, 0.130136477f,
    0.132868322f, 0.13563333f, 0.138431615f, 0.141263291f, 0.144128471f, 0.147027266f,
    0.14995979f, 0.152926152f, 0.155926464f, 0.158960835f, 0.162029376f, 0.165132195f,
    0.1682694f, 0.171441101f, 0.174647404f, 0.177888416f, 0.181164244f, 0.184474995f,
    0.187820772f, 0.191201683f, 0.19461783f, 0.19806932f, 0.201556254f, 0.205078736f,
    0.20863687f, 0.212230757f, 0.2158605f, 0.2195262f, 0.223227957f, 0.226965874f,
    0.230740049f, 0.234550582f, 0.238397574f, 0.242281122f, 0.246201327f, 0.250158285f,
    0.254152094f, 0.258182853f, 0.262250658f, 0.266355605f, 0.270497791f, 0.274677312f,
    0.278894263f, 0.28314874f, 0.287440838f, 0.29177065f, 0.296138271f, 0.300543794f,
    0.304987314f, 0.309468923f, 0.313988713f, 0.318546778f, 0.323143209f, 0.327778098f,
    0.332451536f, 0.337163615f, 0.341914425f, 0.346704056f, 0.3515326f, 0.356400144f,
    0.36130678f, 0.366252596f, 0.37123768f, 0.376262123f, 0.381326011f, 0.386429434f,
    0.391572478f, 0.396755231f, 0.40197778f, 0.407240212f, 0.412542613f, 0.417885071f,
    0.42326767f, 0.428690497f, 0.434153636f, 0.439657174f, 0.445201195f, 0.450785783f,
    0.456411023f, 0.462077f, 0.467783796f, 0.473531496f, 0.479320183f, 0.48514994f,
    0.49102085f, 0.496932995f, 0.502886458f, 0.508881321f, 0.514917665f, 0.520995573f,
    0.527115126f, 0.533276404f, 0.539479489f, 0.545724461f, 0.552011402f, 0.55834039f,
    0.564711506f, 0.571124829f, 0.57758044f, 0.584078418f, 0.590618841f, 0.597201788f,
    0.603827339f, 0.610495571f, 0.617206562f, 0.623960392f, 0.630757136f, 0.637596874f,
    0.644479682f, 0.651405637f, 0.658374817f, 0.665387298f, 0.672443157f, 0.67954247f,
    0.686685312f, 0.693871761f, 0.701101892f, 0.70837578f, 0.715693501f, 0.723055129f,
    0.73046074f, 0.737910409f, 0.74540421f, 0.752942217f, 0.760524505f, 0.768151147f,
    0.775822218f, 0.783537792f, 0.79129794f, 0.799102738f, 0.806952258f, 0.814846572f,
    0.822785754f, 0.830769877f, 0.838799012f, 0.846873232f, 0.854992608f, 0.863157213f,
    0.871367119f, 0.879622397f, 0.887923118f, 0.896269353f, 0.904661174f, 0.913098652f,
    0.921581856f, 0.930110858f, 0.938685728f, 0.947306537f, 0.955973353f, 0.964686248f,
    0.97344529f, 0.98225055f, 0.991102097f, 1.0f,
};

/* sRGB <-> linear light. */
static float to_linear(uint8_t v) { return k_srgb_to_linear[v]; }

static uint8_t to_srgb(float l) {
    if (!(l > 0.0f)) return 0; /* also NaN */
    if (l >= 1.0f) return 255;
    float s = l <= 0.0031308f ? l * 12.92f : 1.055f * powf(l, 1.0f / 2.4f) - 0.055f;
    float v = s * 255.0f + 0.5f;
    if (v >= 255.0f) return 255;
    return (uint8_t)v;
}

void bsync_plot_blend(bsync_plot_canvas* c, int x, int y, bsync_plot_rgb col, float alpha) {
    if (x < 0 || y < 0 || x >= c->w || y >= c->h || !(alpha > 0.0f)) return;
    if (alpha >= 1.0f) {
        bsync_plot_set(c, x, y, col);
        return;
    }
    bsync_plot_rgb cols[2] = {bsync_plot_get(c, x, y), col};
    float w[2] = {1.0f - alpha, alpha};
    bsync_plot_set(c, x, y, bsync_plot_mix(cols, w, 2));
}

bsync_plot_rgb bsync_plot_mix(const bsync_plot_rgb* colours, const float* weights, size_t n) {
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float w = weights[i];
        if (!(w > 0.0f)) continue;
        if (w >= 1.0f) return colours[i]; /* exact for a pure colour */
        r += w * to_linear(colours[i].r);
        g += w * to_linear(colours[i].g);
        b += w * to_linear(colours[i].b);
    }
    bsync_plot_rgb out = {to_srgb(r), to_srgb(g), to_srgb(b)};
    return out;
}

void bsync_plot_fill_rect(bsync_plot_canvas* c, int x, int y, int w, int h, bsync_plot_rgb col) {
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    int x1 = w > c->w - x ? c->w : x + w, y1 = h > c->h - y ? c->h : y + h;
    for (int j = y0; j < y1; j++)
        for (int i = x0; i < x1; i++) bsync_plot_set(c, i, j, col);
}

static float clamp01(double v) {
    if (!(v > 0.0)) return 0.0f;
    if (v >= 1.0) return 1.0f;
    return (float)v;
}

/* Pixel bounds [*lo, *hi] of the interval [a - pad, b + pad], clipped to 0..n-1; 0 if empty. */
static int span(double a, double b, double pad, int n, int* lo, int* hi) {
    double mn = (a < b ? a : b) - pad, mx = (a < b ? b : a) + pad;
    if (!(mx >= 0.0) || !(mn < (double)n)) return 0;
    *lo = mn <= 0.0 ? 0 : (int)mn;
    *hi = mx >= (double)(n - 1) ? n - 1 : (int)mx;
    return *lo <= *hi;
}

void bsync_plot_line(bsync_plot_canvas* c, double x0, double y0, double x1, double y1, double width,
                     bsync_plot_rgb col, float alpha) {
    double half = width / 2.0;
    int i0, i1, j0, j1;
    if (!span(x0, x1, half + 1.0, c->w, &i0, &i1) || !span(y0, y1, half + 1.0, c->h, &j0, &j1)) return;
    double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    for (int j = j0; j <= j1; j++) {
        for (int i = i0; i <= i1; i++) {
            double px = i + 0.5 - x0, py = j + 0.5 - y0;
            double t = len2 > 0.0 ? (px * dx + py * dy) / len2 : 0.0;
            if (t < 0.0) t = 0.0;
            if (t > 1.0) t = 1.0;
            double ex = px - t * dx, ey = py - t * dy;
            double d = sqrt(ex * ex + ey * ey);
            float cover = clamp01(half + 0.5 - d);
            if (cover > 0.0f) bsync_plot_blend(c, i, j, col, cover * alpha);
        }
    }
}

void bsync_plot_dashed_line(bsync_plot_canvas* c, double x0, double y0, double x1, double y1, double width,
                            double dash, bsync_plot_rgb col, float alpha) {
    double dx = x1 - x0, dy = y1 - y0, len = sqrt(dx * dx + dy * dy);
    if (!(len > 0.0) || !(dash > 0.0)) {
        bsync_plot_line(c, x0, y0, x1, y1, width, col, alpha);
        return;
    }
    for (double s = 0.0; s < len; s += 2.0 * dash) {
        double e = s + dash < len ? s + dash : len;
        bsync_plot_line(c, x0 + dx * s / len, y0 + dy * s / len, x0 + dx * e / len, y0 + dy * e / len, width, col,
                        alpha);
    }
}

void bsync_plot_ring(bsync_plot_canvas* c, double cx, double cy, double r, double width, bsync_plot_rgb col,
                     float alpha) {
    double half = width / 2.0;
    int i0, i1, j0, j1;
    if (!span(cx - r, cx + r, half + 1.0, c->w, &i0, &i1) || !span(cy - r, cy + r, half + 1.0, c->h, &j0, &j1))
        return;
    for (int j = j0; j <= j1; j++) {
        for (int i = i0; i <= i1; i++) {
            double ex = i + 0.5 - cx, ey = j + 0.5 - cy;
            double d = fabs(sqrt(ex * ex + ey * ey) - r);
            float cover = clamp01(half + 0.5 - d);
            if (cover > 0.0f) bsync_plot_blend(c, i, j, col, cover * alpha);
        }
    }
}

void bsync_plot_disc(bsync_plot_canvas* c, double cx, double cy, double r, bsync_plot_rgb col, float alpha) {
    int i0, i1, j0, j1;
    if (!span(cx - r, cx + r, 1.0, c->w, &i0, &i1) || !span(cy - r, cy + r, 1.0, c->h, &j0, &j1)) return;
    for (int j = j0; j <= j1; j++) {
        for (int i = i0; i <= i1; i++) {
            double ex = i + 0.5 - cx, ey = j + 0.5 - cy;
            float cover = clamp01(r + 0.5 - sqrt(ex * ex + ey * ey));
            if (cover > 0.0f) bsync_plot_blend(c, i, j, col, cover * alpha);
        }
    }
}

void bsync_plot_restore_disc(bsync_plot_canvas* c, const bsync_plot_canvas* src, double cx, double cy, double r) {
    int i0, i1, j0, j1;
    if (src->w != c->w || src->h != c->h) return;
    if (!span(cx - r, cx + r, 1.0, c->w, &i0, &i1) || !span(cy - r, cy + r, 1.0, c->h, &j0, &j1)) return;
    for (int j = j0; j <= j1; j++) {
        for (int i = i0; i <= i1; i++) {
            double ex = i + 0.5 - cx, ey = j + 0.5 - cy;
            if (ex * ex + ey * ey <= r * r) bsync_plot_set(c, i, j, bsync_plot_get(src, i, j));
        }
    }
}

int bsync_plot_text_width(const char* text, int scale) {
    size_t n = strlen(text);
    if (n == 0) return 0;
    if (n > 4096) n = 4096;
    return ((int)n * BSYNC_PLOT_FONT_ADVANCE - 1) * scale;
}

/* Draws the font pixels of `text`, each grown by `grow` font pixels in every direction. */
static void text_pass(bsync_plot_canvas* c, int x, int y, const char* text, int scale, int grow, bsync_plot_rgb col) {
    for (size_t k = 0; text[k] && k < 4096; k++) {
        int gx = x + (int)k * BSYNC_PLOT_FONT_ADVANCE * scale;
        if (gx >= c->w) break;
        for (int row = -grow; row < BSYNC_PLOT_FONT_H + grow; row++) {
            for (int col_ = -grow; col_ < BSYNC_PLOT_FONT_W + grow; col_++) {
                int on = 0;
                for (int dr = -grow; dr <= grow && !on; dr++)
                    for (int dc = -grow; dc <= grow && !on; dc++)
                        on = bsync_plot_font_pixel((unsigned char)text[k], col_ + dc, row + dr);
                if (on) bsync_plot_fill_rect(c, gx + col_ * scale, y + row * scale, scale, scale, col);
            }
        }
    }
}

void bsync_plot_text(bsync_plot_canvas* c, int x, int y, const char* text, int scale, bsync_plot_rgb col) {
    text_pass(c, x, y, text, scale, 0, col);
}

void bsync_plot_text_halo(bsync_plot_canvas* c, int x, int y, const char* text, int scale, bsync_plot_rgb col,
                          bsync_plot_rgb halo) {
    text_pass(c, x, y, text, scale, 1, halo);
    text_pass(c, x, y, text, scale, 0, col);
}

/* ------------------------------------------------------------------------------------ PNG */

typedef struct png_sink {
    FILE* f;
    int failed;
} png_sink;

static void png_write_cb(void* context, void* data, int size) {
    png_sink* s = context;
    if (s->failed || size <= 0) return;
    if (fwrite(data, 1, (size_t)size, s->f) != (size_t)size) s->failed = 1;
}

int bsync_plot_write_png(const bsync_plot_canvas* c, const char* path, char* err, size_t cap) {
    size_t n = strlen(path);
    char* tmp = malloc(n + 16);
    if (!tmp) {
        snprintf(err, cap, "%s: out of memory", path);
        return -1;
    }
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp-XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, cap, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkstemp makes the file 0600; an image is an ordinary file (0666 less the umask). */
    int ok = bsync_platform_make_ordinary(fd) == 0;
    png_sink sink = {fdopen(fd, "wb"), 0};
    if (!sink.f) {
        close(fd);
        ok = 0;
    }
    int saved = 0;
    if (ok && !stbi_write_png_to_func(png_write_cb, &sink, c->w, c->h, 3, c->px, c->w * 3)) {
        ok = 0;
        saved = EIO;
    }
    if (ok && sink.failed) {
        ok = 0;
        saved = errno;
    }
    if (sink.f && fclose(sink.f) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        if (saved == 0) saved = errno;
        snprintf(err, cap, "%s: cannot write the image: %s", path, strerror(saved ? saved : EIO));
        unlink(tmp);
    }
    free(tmp);
    return ok ? 0 : -1;
}
