/* cmd_plot.c — `blendsync plot CONFIG --node NAME -o OUT.png [--size N] [--at X,Y]`: a blend node
 * drawn as a picture a designer reads at a glance.
 *
 * 2D nodes: every pixel of a square view (the layout's bounds plus a margin, aspect 1:1) shows the
 * weight-mixed colour of the node's children at that parameter point; the samples are rings (their
 * inside left unpainted, so the pixel at a sample shows the field there) labelled with their
 * names; Delaunay2D nodes also show their triangulation. 1D nodes (Simple1D): one weight curve per
 * child over the parameter range, thresholds marked and labelled, and a band under the curves
 * showing the mixed colour. Direct nodes are refused (their weights are the parameters). A grid
 * with numeric ticks, a legend and the --at marker complete the picture.
 *
 * Weights always come from the fixed-point core: each pixel's parameter point is converted to
 * fix16 (bsync_fx_from_double) and evaluated with bsync_blend_tree_eval_node; floats are used only
 * to place and mix colours. The pixel holding a sample (2D) and the column of a threshold (1D) are
 * evaluated at the sample's exact point, so they show exactly the weights there (pure colour when
 * the node gives that sample weight one). stdout lists where each sample was drawn (pixel and colour) and, with
 * --at, the weights there. Exit 0 on success, 2 on any error (nothing is written then).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/fixed.h"
#include "blendsync/io/config.h"
#include "commands.h"
#include "plot_font.h"
#include "plot_raster.h"

#define PLOT_SIZE_MIN 256
#define PLOT_SIZE_MAX 4096
#define PLOT_SIZE_DEFAULT 640

static const char k_usage[] =
    "usage: blendsync plot CONFIG -o OUT.png [--node NAME] [--size N] [--at X[,Y]]\n"
    "\n"
    "Draws a blend node of a graph configuration as a PNG picture.\n"
    "  CONFIG        the graph configuration (JSON, see docs)\n"
    "  --node NAME   the node to draw (default: the root node)\n"
    "  -o OUT.png    the picture to write (written whole or not at all)\n"
    "  --size N      width and height in pixels, 256..4096 (default 640)\n"
    "  --at X[,Y]    mark a parameter point and print the node's weights there\n"
    "                (X,Y for 2D nodes, X for Simple1D nodes)\n"
    "\n"
    "2D nodes: every pixel is the weight-mixed colour of the children at that point; samples\n"
    "are rings labelled with their names. Simple1D nodes: a weight curve per child. Direct nodes\n"
    "cannot be drawn. Child i has palette colour i: #e6194b #3cb44b #4363d8 #ffe119 #f58231\n"
    "#911eb4 #42d4f4 #f032e6 #bfef45 #469990 #9a6324 #800000 #808000 #000075 #fabed4 #aaffc3,\n"
    "then golden-angle hues. stdout names each sample's pixel and colour.\n";

static const bsync_plot_rgb k_palette[16] = {
    {0xe6, 0x19, 0x4b}, {0x3c, 0xb4, 0x4b}, {0x43, 0x63, 0xd8}, {0xff, 0xe1, 0x19},
    {0xf5, 0x82, 0x31}, {0x91, 0x1e, 0xb4}, {0x42, 0xd4, 0xf4}, {0xf0, 0x32, 0xe6},
    {0xbf, 0xef, 0x45}, {0x46, 0x99, 0x90}, {0x9a, 0x63, 0x24}, {0x80, 0x00, 0x00},
    {0x80, 0x80, 0x00}, {0x00, 0x00, 0x75}, {0xfa, 0xbe, 0xd4}, {0xaa, 0xff, 0xc3},
};

static const bsync_plot_rgb k_white = {255, 255, 255};
static const bsync_plot_rgb k_black = {0, 0, 0};
static const bsync_plot_rgb k_ink = {32, 32, 32};
static const bsync_plot_rgb k_paper = {246, 246, 244};
static const bsync_plot_rgb k_frame = {150, 150, 150};

static bsync_plot_rgb palette_colour(uint32_t i) {
    if (i < 16) return k_palette[i];
    /* golden-angle hue, s 0.65, v 0.85 */
    double h = fmod((double)i * 0.6180339887, 1.0) * 6.0, v = 0.85, s = 0.65;
    int sector = (int)h;
    double f = h - sector, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double r = v, g = t, b = p;
    switch (sector) {
    case 1: r = q; g = v; b = p; break;
    case 2: r = p; g = v; b = t; break;
    case 3: r = p; g = q; b = v; break;
    case 4: r = t; g = p; b = v; break;
    case 5: r = v; g = p; b = q; break;
    default: break;
    }
    bsync_plot_rgb c = {(uint8_t)(r * 255 + 0.5), (uint8_t)(g * 255 + 0.5), (uint8_t)(b * 255 + 0.5)};
    return c;
}

/* Everything the drawing needs about the node. */
typedef struct plot_ctx {
    const bsync_blend_tree* tree;
    uint32_t node;
    const bsync_blend_space* space;
    bsync_blend_type type;
    uint32_t n;                          /* children */
    uint32_t dims;                       /* 1 or 2 */
    const char* names[BSYNC_MAX_BLEND_CHILDREN];
    bsync_plot_rgb colours[BSYNC_MAX_BLEND_CHILDREN];
    fix16_t* params;                     /* the tree's parameters: defaults, node's slots overwritten */
    uint32_t slot[2];                    /* tree parameter index of the node's x (and y) */
    int has_at;
    fix16_t at[2];
    int scale;                           /* text scale */
    int sx[BSYNC_MAX_BLEND_CHILDREN];    /* where each sample was drawn (pixel showing its colour) */
    int sy[BSYNC_MAX_BLEND_CHILDREN];
    int peak_y;                          /* 1D: the pixel row of weight 1 */
    int size;
} plot_ctx;

/* The node's weights at (x, y) (y ignored for 1D), through the fixed-point core. */
static int eval_at_fx(plot_ctx* p, fix16_t x, fix16_t y, fix16_t* w) {
    p->params[p->slot[0]] = x;
    if (p->dims == 2) p->params[p->slot[1]] = y;
    return bsync_blend_tree_eval_node(p->tree, p->node, p->params, w) == BSYNC_OK ? 0 : -1;
}

static fix16_t to_fx(double v) {
    fix16_t r = 0;
    if (v > 32767.0) v = 32767.0;
    if (v < -32767.0) v = -32767.0;
    if (bsync_fx_from_double(v, &r) != BSYNC_OK) r = 0;
    return r;
}

static int eval_fx_float(plot_ctx* p, fix16_t x, fix16_t y, float* wf) {
    fix16_t w[BSYNC_MAX_BLEND_CHILDREN];
    if (eval_at_fx(p, x, y, w) != 0) return -1;
    for (uint32_t i = 0; i < p->n; i++) wf[i] = (float)bsync_fx_to_double(w[i]);
    return 0;
}

static int eval_at(plot_ctx* p, double x, double y, float* wf) { return eval_fx_float(p, to_fx(x), to_fx(y), wf); }

static double nice_step(double span, int target) {
    if (!(span > 0.0)) return 1.0;
    double raw = span / target, p = pow(10.0, floor(log10(raw))), m = raw / p;
    double k = m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0;
    return k * p;
}

static void tick_label(char* buf, size_t cap, double v, double step) {
    int d = (int)ceil(-log10(step) - 1e-9);
    if (d < 0) d = 0;
    if (d > 5) d = 5;
    if (fabs(v) < step * 1e-6) v = 0.0;
    snprintf(buf, cap, "%.*f", d, v);
}

static void fx_text(fix16_t v, char* buf, size_t cap) {
    if (bsync_fx_format(v, buf, cap) == 0) snprintf(buf, cap, "%.5f", bsync_fx_to_double(v));
}

static void hex_colour(bsync_plot_rgb c, char* buf, size_t cap) {
    snprintf(buf, cap, "#%02x%02x%02x", c.r, c.g, c.b);
}

/* `name` cut to at most `max_px` pixels wide at `scale` (ending in '~' when cut). */
static void fit_text(const char* name, int max_px, int scale, char* out, size_t cap) {
    snprintf(out, cap, "%s", name);
    size_t len = strlen(out);
    while (len > 1 && bsync_plot_text_width(out, scale) > max_px) {
        len--;
        out[len] = '\0';
        out[len - 1] = '~';
    }
}

/* ------------------------------------------------------------------------- shared frame */

typedef struct frame {
    int pad, th;        /* padding and text height in pixels */
    int ml, mt;         /* left and top of the plot area */
    int pw, ph;         /* plot area size */
    int legend_x, legend_y, legend_w; /* the legend's box: top-left corner and width */
} frame;

/* The legend label of child i: its name, and its weight at --at when `at_w` is given. */
static void legend_label(const plot_ctx* p, uint32_t i, const fix16_t* at_w, char* out, size_t cap) {
    if (at_w) {
        char v[24];
        fx_text(at_w[i], v, sizeof v);
        snprintf(out, cap, "%s %s", p->names[i], v);
    } else {
        snprintf(out, cap, "%s", p->names[i]);
    }
}

/* Lays out the legend as a flow of items (swatch, label) in rows within [x, x + w), drawing it
 * when `c` is non-NULL. Labels too wide for the box are cut; items that would fall off the bottom
 * of the canvas are replaced by "+K more". Returns the height the whole legend needs. */
static int legend_flow(bsync_plot_canvas* c, const plot_ctx* p, const frame* f, int x, int y, int w,
                       const fix16_t* at_w) {
    int ix[BSYNC_MAX_BLEND_CHILDREN], iy[BSYNC_MAX_BLEND_CHILDREN];
    char fitted[BSYNC_MAX_BLEND_CHILDREN][160];
    int cx = x, cy = y, step = f->th + f->pad, gap = 3 * f->pad;
    for (uint32_t i = 0; i < p->n; i++) {
        char label[160];
        legend_label(p, i, at_w, label, sizeof label);
        fit_text(label, w - f->th - f->pad, p->scale, fitted[i], sizeof fitted[i]);
        int iw = f->th + f->pad + bsync_plot_text_width(fitted[i], p->scale);
        if (cx > x && cx + iw > x + w) {
            cx = x;
            cy += step;
        }
        ix[i] = cx;
        iy[i] = cy;
        cx += iw + gap;
    }
    if (!c) return p->n ? cy + step - y : 0;
    uint32_t shown = p->n;
    while (shown > 0 && iy[shown - 1] + f->th > c->h) shown--;
    if (shown < p->n && shown > 0) shown--; /* its place says "+K more" */
    for (uint32_t i = 0; i < shown; i++) {
        bsync_plot_fill_rect(c, ix[i] - 1, iy[i] - 1, f->th + 2, f->th + 2, k_ink);
        bsync_plot_fill_rect(c, ix[i], iy[i], f->th, f->th, p->colours[i]);
        bsync_plot_text(c, ix[i] + f->th + f->pad, iy[i], fitted[i], p->scale, k_ink);
    }
    if (shown < p->n) {
        char more[32];
        snprintf(more, sizeof more, "+%u more", (unsigned)(p->n - shown));
        bsync_plot_text(c, ix[shown], iy[shown], more, p->scale, k_ink);
    }
    return p->n ? cy + step - y : 0;
}

/* Width of the widest legend item (one item per row), at most 30% of the image. */
static int legend_column_width(const plot_ctx* p, const frame* f, const fix16_t* at_w) {
    int w = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        char label[160];
        legend_label(p, i, at_w, label, sizeof label);
        int tw = bsync_plot_text_width(label, p->scale);
        if (tw > w) w = tw;
    }
    int full = f->th + f->pad + w, cap = p->size * 3 / 10;
    return full < cap ? full : cap;
}

static void draw_title(bsync_plot_canvas* c, const plot_ctx* p, const frame* f) {
    char title[256];
    const char* xn = bsync_blend_tree_parameter_name(p->tree, p->slot[0]);
    if (p->dims == 2)
        snprintf(title, sizeof title, "%s: %s over (%s, %s)", bsync_blend_tree_node_name(p->tree, p->node),
                 bsync_blend_type_name(p->type), xn, bsync_blend_tree_parameter_name(p->tree, p->slot[1]));
    else
        snprintf(title, sizeof title, "%s: %s, weights over %s", bsync_blend_tree_node_name(p->tree, p->node),
                 bsync_blend_type_name(p->type), xn);
    char fitted[256];
    fit_text(title, c->w - 2 * f->pad, p->scale, fitted, sizeof fitted);
    bsync_plot_text(c, f->pad, f->pad, fitted, p->scale, k_ink);
}

/* -------------------------------------------------------------------------------- 2D */

typedef struct view2d {
    double x0, y1, unit; /* parameter value at the plot's left edge and top edge; units per pixel */
    int px0, py0, side;  /* the plot square in pixels */
} view2d;

static double v2_px(const view2d* v, double x) { return v->px0 + (x - v->x0) / v->unit; }
static double v2_py(const view2d* v, double y) { return v->py0 + (v->y1 - y) / v->unit; }

/* Boxes already taken in the plot (rings, labels, the --at marker), for placing labels. */
typedef struct box {
    int x0, y0, x1, y1; /* [x0, x1) x [y0, y1) */
} box;
typedef struct box_list {
    int n;
    box b[2 * BSYNC_MAX_BLEND_CHILDREN + 4];
} box_list;

static void box_add(box_list* l, int x0, int y0, int x1, int y1) {
    if (l->n < (int)(sizeof l->b / sizeof l->b[0])) {
        box b = {x0, y0, x1, y1};
        l->b[l->n++] = b;
    }
}

static long overlap(const box* a, const box* b) {
    int w = (a->x1 < b->x1 ? a->x1 : b->x1) - (a->x0 > b->x0 ? a->x0 : b->x0);
    int h = (a->y1 < b->y1 ? a->y1 : b->y1) - (a->y0 > b->y0 ? a->y0 : b->y0);
    return w > 0 && h > 0 ? (long)w * h : 0;
}

/* Places a label near (cx, cy) outside a ring of radius r, inside the plot square: the first of
 * eight spots around the ring that overlaps nothing already placed, else the one overlapping least.
 * The chosen box is added to `taken`. */
static void place_label(const view2d* v, box_list* taken, const char* text, int scale, int th, double cx, double cy,
                        double r, int* ox, int* oy) {
    int w = bsync_plot_text_width(text, scale), gap = 2 * scale, halo = scale;
    int right = (int)(cx + r) + gap, left = (int)(cx - r) - gap - w, mid = (int)(cx - w / 2.0);
    int above = (int)(cy - r) - th, below = (int)(cy + r) + gap, level = (int)(cy - th / 2.0);
    const int spots[8][2] = {{right, above}, {right, level}, {left, above}, {left, level},
                             {right, below}, {left, below},  {mid, above - gap}, {mid, below}};
    long best = -1;
    for (int k = 0; k < 8; k++) {
        int x = spots[k][0], y = spots[k][1];
        if (x - halo < v->px0 || y - halo < v->py0 || x + w + halo > v->px0 + v->side ||
            y + th + halo > v->py0 + v->side)
            continue;
        box b = {x - halo, y - halo, x + w + halo, y + th + halo};
        long cost = 0;
        for (int i = 0; i < taken->n; i++) cost += overlap(&b, &taken->b[i]);
        if (best < 0 || cost < best) {
            best = cost;
            *ox = x;
            *oy = y;
            if (cost == 0) break;
        }
    }
    if (best < 0) { /* nowhere inside: clamp the first spot into the square */
        int x = right, y = above;
        if (x + w + halo > v->px0 + v->side) x = v->px0 + v->side - w - halo;
        if (x - halo < v->px0) x = v->px0 + halo;
        if (y + th + halo > v->py0 + v->side) y = v->py0 + v->side - th - halo;
        if (y - halo < v->py0) y = v->py0 + halo;
        *ox = x;
        *oy = y;
    }
    box_add(taken, *ox - halo, *oy - halo, *ox + w + halo, *oy + th + halo);
}

static int plot_2d(bsync_plot_canvas* c, plot_ctx* p) {
    frame f;
    f.pad = 4 * p->scale;
    f.th = BSYNC_PLOT_FONT_H * p->scale;
    fix16_t at_w[BSYNC_MAX_BLEND_CHILDREN];
    if (p->has_at && eval_at_fx(p, p->at[0], p->at[1], at_w) != 0) {
        fprintf(stderr, "blendsync plot: the node could not be evaluated at --at\n");
        return -1;
    }
    const fix16_t* legend_w = p->has_at ? at_w : NULL;

    /* the view: layout bounds (and the --at point) plus a margin, square */
    bsync_vec2 bmin, bmax;
    bsync_blend_space_bounds(p->space, &bmin, &bmax);
    double x0 = bsync_fx_to_double(bmin.x), x1 = bsync_fx_to_double(bmax.x);
    double y0 = bsync_fx_to_double(bmin.y), y1 = bsync_fx_to_double(bmax.y);
    if (p->has_at) {
        double ax = bsync_fx_to_double(p->at[0]), ay = bsync_fx_to_double(p->at[1]);
        if (ax < x0) x0 = ax;
        if (ax > x1) x1 = ax;
        if (ay < y0) y0 = ay;
        if (ay > y1) y1 = ay;
    }
    double extent = x1 - x0 > y1 - y0 ? x1 - x0 : y1 - y0;
    if (!(extent > 0.0)) extent = 2.0;
    double span = extent * 1.3, cx = (x0 + x1) / 2.0, cy = (y0 + y1) / 2.0;
    double step = nice_step(span, 5);

    /* frame: ticks on the left and bottom; the legend on the right or below, whichever leaves the
     * larger square */
    char buf[64];
    int tick_w = 0;
    for (long k = (long)ceil((cy - span / 2) / step); k * step <= cy + span / 2; k++) {
        double t = k * step;
        tick_label(buf, sizeof buf, t, step);
        int w = bsync_plot_text_width(buf, p->scale);
        if (w > tick_w) tick_w = w;
    }
    f.ml = tick_w + 3 * f.pad;
    f.mt = 2 * f.pad + f.th + f.pad + f.th + f.pad; /* title line, then the y axis name */
    int mb = f.pad + f.th + f.pad + f.th + 2 * f.pad;
    int right_w = legend_column_width(p, &f, legend_w);
    int side_r = c->w - f.ml - 4 * f.pad - right_w, h_r = c->h - f.mt - mb;
    if (h_r < side_r) side_r = h_r;
    int below_w = c->w - 2 * f.pad;
    int below_h = legend_flow(NULL, p, &f, f.pad, 0, below_w, legend_w);
    int side_b = c->w - f.ml - 3 * f.pad, h_b = c->h - f.mt - mb - below_h - f.pad;
    if (h_b < side_b) side_b = h_b;
    int side = side_r > side_b ? side_r : side_b;
    if (side < 48) {
        fprintf(stderr, "blendsync plot: --size %d leaves no room for the plot next to the legend\n", p->size);
        return -1;
    }
    f.pw = f.ph = side;
    if (side_r >= side_b) {
        f.legend_x = f.ml + side + 3 * f.pad;
        f.legend_y = f.mt;
        f.legend_w = right_w;
    } else {
        f.ml += (c->w - f.ml - 3 * f.pad - side) / 2; /* centre the square */
        f.legend_x = f.pad;
        f.legend_y = f.mt + side + mb;
        f.legend_w = below_w;
    }

    view2d v = {cx - span / 2, cy + span / 2, span / side, f.ml, f.mt, side};

    /* the field */
    float wf[BSYNC_MAX_BLEND_CHILDREN];
    for (int j = 0; j < side; j++) {
        double y = v.y1 - (j + 0.5) * v.unit;
        for (int i = 0; i < side; i++) {
            double x = v.x0 + (i + 0.5) * v.unit;
            if (eval_at(p, x, y, wf) != 0) {
                fprintf(stderr, "blendsync plot: the node could not be evaluated at (%g, %g)\n", x, y);
                return -1;
            }
            bsync_plot_set(c, v.px0 + i, v.py0 + j, bsync_plot_mix(p->colours, wf, p->n));
        }
    }
    /* the pixel holding a sample shows the weights at the sample itself */
    int* sx = p->sx;
    int* sy = p->sy;
    for (uint32_t i = 0; i < p->n; i++) {
        bsync_vec2 pos = bsync_blend_space_position(p->space, i);
        sx[i] = v.px0 + (int)floor((bsync_fx_to_double(pos.x) - v.x0) / v.unit);
        sy[i] = v.py0 + (int)floor((v.y1 - bsync_fx_to_double(pos.y)) / v.unit);
        if (eval_fx_float(p, pos.x, pos.y, wf) != 0) {
            fprintf(stderr, "blendsync plot: the node could not be evaluated at sample %u\n", (unsigned)i);
            return -1;
        }
        bsync_plot_set(c, sx[i], sy[i], bsync_plot_mix(p->colours, wf, p->n));
    }
    bsync_plot_canvas field;
    if (bsync_plot_canvas_copy(&field, c) != 0) {
        fprintf(stderr, "blendsync plot: out of memory\n");
        return -1;
    }

    /* grid, axes and tick labels */
    double left = v.px0, right = v.px0 + side, top = v.py0, bottom = v.py0 + side;
    for (long k = (long)ceil(v.x0 / step); k * step <= v.x0 + span; k++) {
        double t = k * step;
        double px = v2_px(&v, t);
        int is_axis = k == 0;
        bsync_plot_line(c, px, top, px, bottom, is_axis ? 1.5 * p->scale : p->scale, is_axis ? k_black : k_white,
                        is_axis ? 0.55f : 0.45f);
        bsync_plot_line(c, px, bottom, px, bottom + f.pad, p->scale, k_ink, 1.0f);
        tick_label(buf, sizeof buf, t, step);
        int w = bsync_plot_text_width(buf, p->scale);
        bsync_plot_text(c, (int)(px - w / 2.0), (int)bottom + f.pad + 2, buf, p->scale, k_ink);
    }
    for (long k = (long)ceil((v.y1 - span) / step); k * step <= v.y1; k++) {
        double t = k * step;
        double py = v2_py(&v, t);
        int is_axis = k == 0;
        bsync_plot_line(c, left, py, right, py, is_axis ? 1.5 * p->scale : p->scale, is_axis ? k_black : k_white,
                        is_axis ? 0.55f : 0.45f);
        bsync_plot_line(c, left - f.pad, py, left, py, p->scale, k_ink, 1.0f);
        tick_label(buf, sizeof buf, t, step);
        int w = bsync_plot_text_width(buf, p->scale);
        bsync_plot_text(c, (int)left - f.pad - 2 - w, (int)(py - f.th / 2.0), buf, p->scale, k_ink);
    }
    /* frame and axis names */
    bsync_plot_line(c, left - 0.5, top - 0.5, right + 0.5, top - 0.5, 1.0, k_frame, 1.0f);
    bsync_plot_line(c, left - 0.5, bottom + 0.5, right + 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    bsync_plot_line(c, left - 0.5, top - 0.5, left - 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    bsync_plot_line(c, right + 0.5, top - 0.5, right + 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    const char* xn = bsync_blend_tree_parameter_name(p->tree, p->slot[0]);
    const char* yn = bsync_blend_tree_parameter_name(p->tree, p->slot[1]);
    char axis[96];
    snprintf(axis, sizeof axis, "%s ->", xn);
    bsync_plot_text(c, (int)right - bsync_plot_text_width(axis, p->scale), (int)bottom + 2 * f.pad + f.th + 2, axis,
                    p->scale, k_ink);
    snprintf(axis, sizeof axis, "^ %s", yn);
    bsync_plot_text(c, (int)left, (int)top - f.pad - f.th, axis, p->scale, k_ink);

    double r = 5.0 * p->scale;
    /* Delaunay2D: the triangulation, each edge stopping short of the sample rings */
    uint32_t tris = bsync_blend_space_triangle_count(p->space);
    for (uint32_t t = 0; t < tris; t++) {
        uint32_t k[3];
        if (bsync_blend_space_triangle(p->space, t, k) != BSYNC_OK) continue;
        for (int e = 0; e < 3; e++) {
            bsync_vec2 a = bsync_blend_space_position(p->space, k[e]);
            bsync_vec2 b = bsync_blend_space_position(p->space, k[(e + 1) % 3]);
            double ax = v2_px(&v, bsync_fx_to_double(a.x)), ay = v2_py(&v, bsync_fx_to_double(a.y));
            double bx = v2_px(&v, bsync_fx_to_double(b.x)), by = v2_py(&v, bsync_fx_to_double(b.y));
            double dx = bx - ax, dy = by - ay, len = sqrt(dx * dx + dy * dy), cut = r + 2.0 * p->scale;
            if (len <= 2.0 * cut) continue;
            bsync_plot_line(c, ax + dx * cut / len, ay + dy * cut / len, bx - dx * cut / len, by - dy * cut / len,
                            p->scale, k_black, 0.6f);
        }
    }

    /* samples: rings whose inside shows the field, and their names placed clear of the rings, the
     * --at marker and each other */
    box_list taken;
    taken.n = 0;
    int rb = (int)ceil(r + 2.0 * p->scale);
    for (uint32_t i = 0; i < p->n; i++) {
        box_add(&taken, sx[i] - rb, sy[i] - rb, sx[i] + rb + 1, sy[i] + rb + 1);
    }
    double ax = 0.0, ay = 0.0, m = 2.0 * r;
    if (p->has_at) {
        ax = v2_px(&v, bsync_fx_to_double(p->at[0]));
        ay = v2_py(&v, bsync_fx_to_double(p->at[1]));
        box_add(&taken, (int)(ax - m) - 2, (int)(ay - m) - 2, (int)(ax + m) + 3, (int)(ay + m) + 3);
    }
    for (uint32_t i = 0; i < p->n; i++) {
        double qx = sx[i] + 0.5, qy = sy[i] + 0.5;
        bsync_plot_restore_disc(c, &field, qx, qy, r - 0.5 * p->scale);
        bsync_plot_ring(c, qx, qy, r + 1.5 * p->scale, p->scale, k_white, 1.0f);
        bsync_plot_ring(c, qx, qy, r, 1.5 * p->scale, k_black, 1.0f);
    }
    /* the --at marker: a cross in a ring */
    if (p->has_at) {
        bsync_plot_line(c, ax - m, ay, ax + m, ay, 3.0 * p->scale, k_white, 1.0f);
        bsync_plot_line(c, ax, ay - m, ax, ay + m, 3.0 * p->scale, k_white, 1.0f);
        bsync_plot_line(c, ax - m, ay, ax + m, ay, p->scale, k_black, 1.0f);
        bsync_plot_line(c, ax, ay - m, ax, ay + m, p->scale, k_black, 1.0f);
        bsync_plot_ring(c, ax, ay, r, p->scale, k_black, 1.0f);
    }
    for (uint32_t i = 0; i < p->n; i++) {
        int lx = 0, ly = 0;
        place_label(&v, &taken, p->names[i], p->scale, f.th, sx[i] + 0.5, sy[i] + 0.5, r + 2.0 * p->scale, &lx, &ly);
        bsync_plot_text_halo(c, lx, ly, p->names[i], p->scale, k_black, k_white);
    }
    if (p->has_at) {
        int lx = 0, ly = 0;
        place_label(&v, &taken, "at", p->scale, f.th, ax, ay, m, &lx, &ly);
        bsync_plot_text_halo(c, lx, ly, "at", p->scale, k_black, k_white);
    }

    draw_title(c, p, &f);
    legend_flow(c, p, &f, f.legend_x, f.legend_y, f.legend_w, legend_w);
    bsync_plot_canvas_free(&field);

    return 0;
}

/* -------------------------------------------------------------------------------- 1D */

static int plot_1d(bsync_plot_canvas* c, plot_ctx* p) {
    frame f;
    f.pad = 4 * p->scale;
    f.th = BSYNC_PLOT_FONT_H * p->scale;
    fix16_t at_w[BSYNC_MAX_BLEND_CHILDREN];
    if (p->has_at && eval_at_fx(p, p->at[0], 0, at_w) != 0) {
        fprintf(stderr, "blendsync plot: the node could not be evaluated at --at\n");
        return -1;
    }
    const fix16_t* legend_w = p->has_at ? at_w : NULL;
    /* the legend goes below the plot, across the image */
    f.legend_x = f.pad;
    f.legend_w = c->w - 2 * f.pad;
    int legend_h = legend_flow(NULL, p, &f, f.legend_x, 0, f.legend_w, legend_w);

    bsync_vec2 bmin, bmax;
    bsync_blend_space_bounds(p->space, &bmin, &bmax);
    double x0 = bsync_fx_to_double(bmin.x), x1 = bsync_fx_to_double(bmax.x);
    if (p->has_at) {
        double ax = bsync_fx_to_double(p->at[0]);
        if (ax < x0) x0 = ax;
        if (ax > x1) x1 = ax;
    }
    double extent = x1 - x0;
    if (!(extent > 0.0)) extent = 2.0;
    double span = extent * 1.2, cx = (x0 + x1) / 2.0, step = nice_step(span, 6);

    char buf[64];
    f.ml = bsync_plot_text_width("0.75", p->scale) + 3 * f.pad;
    f.pw = c->w - f.ml - 4 * f.pad;
    double vx0 = cx - span / 2, unit = span / f.pw;

    /* threshold labels above the plot, in as many rows as they need not to overlap */
    int row_of[BSYNC_MAX_BLEND_CHILDREN], label_x[BSYNC_MAX_BLEND_CHILDREN], col_of[BSYNC_MAX_BLEND_CHILDREN];
    char labels[BSYNC_MAX_BLEND_CHILDREN][96];
    int row_end[BSYNC_MAX_BLEND_CHILDREN], rows = 0;
    uint32_t order[BSYNC_MAX_BLEND_CHILDREN];
    for (uint32_t i = 0; i < p->n; i++) order[i] = i;
    for (uint32_t i = 1; i < p->n; i++) /* by threshold, stable */
        for (uint32_t k = i; k > 0 && bsync_blend_space_threshold(p->space, order[k]) <
                                          bsync_blend_space_threshold(p->space, order[k - 1]); k--) {
            uint32_t t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    for (uint32_t o = 0; o < p->n; o++) {
        uint32_t i = order[o];
        fix16_t t = bsync_blend_space_threshold(p->space, i);
        char ts[24];
        fx_text(t, ts, sizeof ts);
        snprintf(labels[i], sizeof labels[i], "%s %s", p->names[i], ts);
        col_of[i] = (int)floor((bsync_fx_to_double(t) - vx0) / unit);
        int w = bsync_plot_text_width(labels[i], p->scale) + f.th + f.pad; /* swatch + text */
        int x = f.ml + col_of[i] - w / 2;
        if (x + w > f.ml + f.pw) x = f.ml + f.pw - w;
        if (x < f.pad) x = f.pad;
        label_x[i] = x;
        int r = 0;
        while (r < rows && row_end[r] + 2 * f.pad > x) r++;
        if (r == rows) rows++;
        row_end[r] = x + w;
        row_of[i] = r;
    }
    int label_top = 2 * f.pad + f.th + f.pad;
    f.mt = label_top + rows * (f.th + f.pad) + f.pad;
    int band_h = 2 * f.th, mb = f.pad + band_h + f.pad + f.th + f.pad + f.th + 2 * f.pad;
    f.ph = c->h - f.mt - mb - legend_h - f.pad;
    if (f.ph < 48) {
        fprintf(stderr, "blendsync plot: --size %d leaves no room for the plot under the labels\n", p->size);
        return -1;
    }
    f.legend_y = f.mt + f.ph + mb;
    int head = 2 * f.pad;                       /* room above weight 1 and below weight 0 */
    int y_top = f.mt + head;                    /* pixel row of weight 1 */
    double y_span = (double)(f.ph - 2 * head - 1); /* rows from weight 1 to weight 0 */
    int band_y = f.mt + f.ph + f.pad;
    double left = f.ml, right = f.ml + f.pw, top = f.mt, bottom = f.mt + f.ph;

    bsync_plot_fill_rect(c, f.ml, f.mt, f.pw, f.ph, k_white);
    /* grid: weights 0, 0.25, .. 1 and the parameter ticks */
    for (int k = 0; k <= 4; k++) {
        double w = k / 4.0, py = y_top + 0.5 + (1.0 - w) * y_span;
        bsync_plot_line(c, left, py, right, py, 1.0, k == 0 || k == 4 ? k_frame : k_paper, 1.0f);
        tick_label(buf, sizeof buf, w, 0.01);
        if (k == 0 || k == 4) snprintf(buf, sizeof buf, "%d", k / 4);
        int tw = bsync_plot_text_width(buf, p->scale);
        bsync_plot_text(c, (int)left - f.pad - tw, (int)(py - f.th / 2.0), buf, p->scale, k_ink);
    }
    for (long k = (long)ceil(vx0 / step); k * step <= vx0 + span; k++) {
        double t = k * step;
        double px = f.ml + (t - vx0) / unit;
        bsync_plot_line(c, px, top, px, bottom, 1.0, k == 0 ? k_frame : k_paper, 1.0f);
        bsync_plot_line(c, px, band_y + band_h, px, band_y + band_h + f.pad, p->scale, k_ink, 1.0f);
        tick_label(buf, sizeof buf, t, step);
        int tw = bsync_plot_text_width(buf, p->scale);
        bsync_plot_text(c, (int)(px - tw / 2.0), band_y + band_h + f.pad + 2, buf, p->scale, k_ink);
    }
    bsync_plot_line(c, left - 0.5, top - 0.5, right + 0.5, top - 0.5, 1.0, k_frame, 1.0f);
    bsync_plot_line(c, left - 0.5, bottom + 0.5, right + 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    bsync_plot_line(c, left - 0.5, top - 0.5, left - 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    bsync_plot_line(c, right + 0.5, top - 0.5, right + 0.5, bottom + 0.5, 1.0, k_frame, 1.0f);
    char axis[96];
    snprintf(axis, sizeof axis, "%s ->", bsync_blend_tree_parameter_name(p->tree, p->slot[0]));
    bsync_plot_text(c, (int)right - bsync_plot_text_width(axis, p->scale), band_y + band_h + 2 * f.pad + f.th + 2,
                    axis, p->scale, k_ink);
    bsync_plot_text(c, f.pad, band_y + (band_h - f.th) / 2, "mix", p->scale, k_ink);

    /* thresholds: dashed lines in the child's colour, labelled above the plot */
    for (uint32_t i = 0; i < p->n; i++) {
        double px = f.ml + col_of[i] + 0.5;
        bsync_plot_dashed_line(c, px, top, px, bottom, p->scale, 3.0 * p->scale, p->colours[i], 0.9f);
        int ly = label_top + row_of[i] * (f.th + f.pad);
        bsync_plot_line(c, px, ly + f.th, px, top, 1.0, k_frame, 1.0f);
        bsync_plot_fill_rect(c, label_x[i] - 1, ly - 1, f.th + 2, f.th + 2, k_ink);
        bsync_plot_fill_rect(c, label_x[i], ly, f.th, f.th, p->colours[i]);
        bsync_plot_text(c, label_x[i] + f.th + f.pad, ly, labels[i], p->scale, k_ink);
    }

    /* curves and the mixed-colour band, column by column */
    float wf[BSYNC_MAX_BLEND_CHILDREN], prev[BSYNC_MAX_BLEND_CHILDREN];
    for (int i = 0; i < f.pw; i++) {
        double x = vx0 + (i + 0.5) * unit;
        /* the column of a threshold shows the weights at the threshold itself */
        uint32_t at_thr = p->n;
        for (uint32_t k = 0; k < p->n && at_thr == p->n; k++)
            if (col_of[k] == i) at_thr = k;
        int bad = at_thr < p->n ? eval_fx_float(p, bsync_blend_space_threshold(p->space, at_thr), 0, wf)
                                : eval_at(p, x, 0.0, wf);
        if (bad != 0) {
            fprintf(stderr, "blendsync plot: the node could not be evaluated at %g\n", x);
            return -1;
        }
        bsync_plot_fill_rect(c, f.ml + i, band_y, 1, band_h, bsync_plot_mix(p->colours, wf, p->n));
        if (i > 0)
            for (uint32_t k = 0; k < p->n; k++)
                bsync_plot_line(c, f.ml + i - 0.5, y_top + 0.5 + (1.0 - prev[k]) * y_span, f.ml + i + 0.5,
                                y_top + 0.5 + (1.0 - wf[k]) * y_span, 2.0 * p->scale, p->colours[k], 1.0f);
        memcpy(prev, wf, sizeof prev);
    }
    bsync_plot_line(c, left - 0.5, band_y - 0.5, right + 0.5, band_y - 0.5, 1.0, k_frame, 1.0f);
    bsync_plot_line(c, left - 0.5, band_y + band_h + 0.5, right + 0.5, band_y + band_h + 0.5, 1.0, k_frame, 1.0f);

    if (p->has_at) {
        double ax = f.ml + (bsync_fx_to_double(p->at[0]) - vx0) / unit;
        bsync_plot_line(c, ax, top, ax, band_y + band_h, 3.0 * p->scale, k_white, 1.0f);
        bsync_plot_line(c, ax, top, ax, band_y + band_h, p->scale, k_black, 1.0f);
        for (uint32_t k = 0; k < p->n; k++) {
            double wy = y_top + 0.5 + (1.0 - bsync_fx_to_double(at_w[k])) * y_span;
            bsync_plot_disc(c, ax, wy, 3.5 * p->scale, p->colours[k], 1.0f);
            bsync_plot_ring(c, ax, wy, 3.5 * p->scale, p->scale, k_black, 1.0f);
        }
        int tw = bsync_plot_text_width("at", p->scale);
        int lx = (int)ax + f.pad;
        if (lx + tw > (int)right) lx = (int)ax - f.pad - tw;
        bsync_plot_text_halo(c, lx, (int)top + f.pad, "at", p->scale, k_black, k_white);
    }

    draw_title(c, p, &f);
    legend_flow(c, p, &f, f.legend_x, f.legend_y, f.legend_w, legend_w);

    for (uint32_t i = 0; i < p->n; i++) {
        p->sx[i] = f.ml + col_of[i];
        p->sy[i] = band_y + band_h / 2;
    }
    p->peak_y = y_top;
    return 0;
}

/* ---------------------------------------------------------------------------- command */

static int parse_at(const char* text, uint32_t dims, fix16_t out[2]) {
    const char* comma = strchr(text, ',');
    if (dims == 1) {
        if (comma) return -1;
        return bsync_fx_parse(text, strlen(text), &out[0]) == BSYNC_OK ? 0 : -1;
    }
    if (!comma || strchr(comma + 1, ',')) return -1;
    if (bsync_fx_parse(text, (size_t)(comma - text), &out[0]) != BSYNC_OK) return -1;
    return bsync_fx_parse(comma + 1, strlen(comma + 1), &out[1]) == BSYNC_OK ? 0 : -1;
}

static int parse_size(const char* s, int* out) {
    char* end = NULL;
    if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ') return -1;
    long v = strtol(s, &end, 10);
    if (*end || v < PLOT_SIZE_MIN || v > PLOT_SIZE_MAX) return -1;
    *out = (int)v;
    return 0;
}

static void print_warnings(const bsync_blend_tree* tree, uint32_t node, const bsync_blend_diagnostics* d,
                           const char* const* names) {
    for (uint32_t k = 0; k < d->count; k++) {
        const bsync_blend_warning* w = &d->warnings[k];
        const char* a = w->child_a < BSYNC_MAX_BLEND_CHILDREN && names[w->child_a] ? names[w->child_a] : "?";
        const char* b = w->child_b < BSYNC_MAX_BLEND_CHILDREN && names[w->child_b] ? names[w->child_b] : "?";
        if (w->child_a == w->child_b)
            fprintf(stderr, "blendsync plot: warning: node '%s': %s (%s)\n", bsync_blend_tree_node_name(tree, node),
                    bsync_blend_warning_string(w->code), a);
        else
            fprintf(stderr, "blendsync plot: warning: node '%s': %s (%s, %s)\n",
                    bsync_blend_tree_node_name(tree, node), bsync_blend_warning_string(w->code), a, b);
    }
}

/* What stdout says after a successful write: where each sample is, and the weights at --at. */
static void print_report(plot_ctx* p) {
    for (uint32_t i = 0; i < p->n; i++) {
        char xs[24], ys[24], hex[16];
        hex_colour(p->colours[i], hex, sizeof hex);
        if (p->dims == 2) {
            bsync_vec2 pos = bsync_blend_space_position(p->space, i);
            fx_text(pos.x, xs, sizeof xs);
            fx_text(pos.y, ys, sizeof ys);
            printf("sample %s at (%s, %s): pixel (%d, %d) colour %s\n", p->names[i], xs, ys, p->sx[i], p->sy[i], hex);
        } else {
            fx_text(bsync_blend_space_threshold(p->space, i), xs, sizeof xs);
            printf("sample %s at %s: pixel (%d, %d) peak (%d, %d) colour %s\n", p->names[i], xs, p->sx[i], p->sy[i],
                   p->sx[i], p->peak_y, hex);
        }
    }
    if (!p->has_at) return;
    fix16_t w[BSYNC_MAX_BLEND_CHILDREN];
    if (eval_at_fx(p, p->at[0], p->at[1], w) != 0) return; /* evaluated once already while drawing */
    char xs[24], ys[24];
    fx_text(p->at[0], xs, sizeof xs);
    fx_text(p->at[1], ys, sizeof ys);
    if (p->dims == 2) printf("weights at (%s, %s):\n", xs, ys);
    else printf("weights at %s:\n", xs);
    for (uint32_t k = 0; k < p->n; k++) {
        char ws[24];
        fx_text(w[k], ws, sizeof ws);
        printf("  %-20s %s\n", p->names[k], ws);
    }
}

/* Draws the node and writes the picture; 0 (exit status) on success, 2 with a message otherwise. */
static int render_and_write(plot_ctx* p, const char* out) {
    bsync_plot_canvas canvas;
    if (bsync_plot_canvas_init(&canvas, p->size, p->size, k_paper) != 0) {
        fprintf(stderr, "blendsync plot: out of memory for a %dx%d image\n", p->size, p->size);
        return 2;
    }
    int rc = 2;
    if ((p->dims == 2 ? plot_2d(&canvas, p) : plot_1d(&canvas, p)) == 0) {
        char msg[600];
        if (bsync_plot_write_png(&canvas, out, msg, sizeof msg) != 0) {
            fprintf(stderr, "blendsync plot: %s\n", msg);
        } else {
            printf("plot of node '%s' (%s, %u %s) written to %s (%dx%d)\n",
                   bsync_blend_tree_node_name(p->tree, p->node), bsync_blend_type_name(p->type), (unsigned)p->n,
                   p->n == 1 ? "child" : "children", out, p->size, p->size);
            print_report(p);
            rc = 0;
        }
    }
    bsync_plot_canvas_free(&canvas);
    return rc;
}

int bsync_cmd_plot(int argc, char** argv) {
    const char *config = NULL, *node_name = NULL, *out = NULL, *at_text = NULL;
    int size = PLOT_SIZE_DEFAULT;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(k_usage, stdout);
            return 0;
        }
        int takes = !strcmp(a, "--node") || !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--size") ||
                    !strcmp(a, "--at");
        if (takes) {
            if (i + 1 >= argc) {
                fprintf(stderr, "blendsync plot: %s needs a value\n", a);
                return 2;
            }
            const char* v = argv[++i];
            if (!strcmp(a, "--node")) node_name = v;
            else if (!strcmp(a, "--at")) at_text = v;
            else if (!strcmp(a, "--size")) {
                if (parse_size(v, &size) != 0) {
                    fprintf(stderr, "blendsync plot: --size needs a whole number from %d to %d, not '%s'\n", PLOT_SIZE_MIN,
                            PLOT_SIZE_MAX, v);
                    return 2;
                }
            } else out = v;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "blendsync plot: unknown option '%s'\n%s", a, k_usage);
            return 2;
        } else if (!config) {
            config = a;
        } else {
            fprintf(stderr, "blendsync plot: one CONFIG only ('%s' and '%s')\n", config, a);
            return 2;
        }
    }
    if (!config || !out) {
        fprintf(stderr, "blendsync plot: %s\n%s", !config ? "CONFIG is missing" : "-o OUT.png is missing", k_usage);
        return 2;
    }

    bsync_blend_diagnostics* diags = calloc(BSYNC_MAX_BLEND_NODES, sizeof *diags);
    plot_ctx* p = calloc(1, sizeof *p);
    if (!diags || !p) {
        free(diags);
        free(p);
        fprintf(stderr, "blendsync plot: out of memory\n");
        return 2;
    }
    bsync_blend_tree* tree = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    int rc = 2;
    if (bsync_config_load(config, NULL, &tree, diags, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync plot: %s\n", err.message[0] ? err.message : bsync_result_string(err.code));
        goto done;
    }
    p->tree = tree;
    if (node_name) {
        if (bsync_blend_tree_find_node(tree, node_name, &p->node) != BSYNC_OK) {
            fprintf(stderr, "blendsync plot: %s has no node named '%s' (nodes:", config, node_name);
            for (uint32_t k = 0; k < bsync_blend_tree_node_count(tree); k++)
                fprintf(stderr, " %s", bsync_blend_tree_node_name(tree, k));
            fprintf(stderr, ")\n");
            goto done;
        }
    } else {
        p->node = bsync_blend_tree_root(tree);
    }
    p->space = bsync_blend_tree_node_space(tree, p->node);
    p->type = bsync_blend_space_type(p->space);
    const char* nn = bsync_blend_tree_node_name(tree, p->node);
    if (p->type == BSYNC_BLEND_DIRECT) {
        fprintf(stderr,
                "blendsync plot: node '%s' is a Direct node: its weights are its parameters themselves, so there is "
                "no blend space to draw (use `blendsync weights`)\n",
                nn);
        goto done;
    }
    p->dims = p->type == BSYNC_BLEND_SIMPLE_1D ? 1 : 2;
    p->n = bsync_blend_space_child_count(p->space);
    for (uint32_t k = 0; k < p->n; k++) {
        bsync_blend_child_ref ref = bsync_blend_tree_node_child(tree, p->node, k);
        p->names[k] = ref.kind == BSYNC_CHILD_NODE ? bsync_blend_tree_node_name(tree, ref.index)
                                                   : bsync_blend_tree_motion_name(tree, ref.index);
        if (!p->names[k]) p->names[k] = "?";
        p->colours[k] = palette_colour(k);
    }
    print_warnings(tree, p->node, &diags[p->node], p->names);
    uint32_t pc = bsync_blend_tree_parameter_count(tree);
    p->params = calloc(pc ? pc : 1, sizeof *p->params);
    if (!p->params) {
        fprintf(stderr, "blendsync plot: out of memory\n");
        goto done;
    }
    for (uint32_t k = 0; k < pc; k++) p->params[k] = bsync_blend_tree_parameter_default(tree, k);
    for (uint32_t k = 0; k < p->dims; k++) p->slot[k] = bsync_blend_tree_node_param(tree, p->node, k);
    if (at_text) {
        if (parse_at(at_text, p->dims, p->at) != 0) {
            fprintf(stderr, "blendsync plot: --at needs %s for the %s node '%s', not '%s'\n",
                    p->dims == 2 ? "two numbers X,Y" : "one number X", bsync_blend_type_name(p->type), nn, at_text);
            goto done;
        }
        p->has_at = 1;
    }
    p->size = size;
    p->scale = size >= 600 ? 2 : 1;

    rc = render_and_write(p, out);

done:
    if (tree) bsync_blend_tree_destroy(tree);
    free(p->params);
    free(p);
    free(diags);
    return rc;
}
