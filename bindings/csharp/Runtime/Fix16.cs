// Fix16.cs — Q16.16 fixed point (libfixmath's fix16_t), the number type of everything simulated.
// Parse and ToString are ports of the C library's bsync_fx_parse and bsync_fx_format
// (shared/src/fixed_text.c): exact decimal rounding with integer arithmetic only, and the shortest
// text that parses back to the same raw value. The csharp_tests program compares both with the C
// functions through P/Invoke over millions of values. Arithmetic calls the library's _abi twins, so
// it is the C code's bits (saturating, libfixmath's rounding).
using System;

namespace Blendsync
{
    public readonly struct Fix16 : IEquatable<Fix16>, IComparable<Fix16>
    {
        /// <summary>The raw Q16.16 value (value * 65536).</summary>
        public readonly int Raw;

        public const int RawOne = 65536;
        public const int RawMax = int.MaxValue;      // BSYNC_FX_MAX
        public const int RawMin = int.MinValue + 1;  // BSYNC_FX_MIN (INT32_MIN is libfixmath's overflow marker)

        public static readonly Fix16 Zero = new Fix16(0);
        public static readonly Fix16 One = new Fix16(RawOne);
        public static readonly Fix16 MaxValue = new Fix16(RawMax);
        public static readonly Fix16 MinValue = new Fix16(RawMin);

        Fix16(int raw) { Raw = raw; }
        public static Fix16 FromRaw(int raw) { return new Fix16(raw); }
        public static Fix16 FromInt(int i) { return new Fix16(Native.bsync_fx_from_int_abi(i)); }

        /// <summary>round(v * 65536), ties away from zero (bsync_fx_from_double). Edges only.</summary>
        public static unsafe Fix16 FromDouble(double v)
        {
            int raw;
            int r = Native.bsync_fx_from_double(v, &raw);
            if (r != 0) throw new BlendsyncException((Result)r, "Fix16.FromDouble(" + v.ToString("R") + ")");
            return new Fix16(raw);
        }
        /// <summary>raw / 65536 (exact). Display only.</summary>
        public double ToDouble() { return Raw / 65536.0; }
        public float ToFloat() { return (float)(Raw / 65536.0); }

        public static Fix16 operator +(Fix16 a, Fix16 b) { return new Fix16(Native.bsync_fx_add_abi(a.Raw, b.Raw)); }
        public static Fix16 operator -(Fix16 a, Fix16 b) { return new Fix16(Native.bsync_fx_sub_abi(a.Raw, b.Raw)); }
        public static Fix16 operator -(Fix16 a) { return new Fix16(Native.bsync_fx_neg_abi(a.Raw)); }
        public static Fix16 operator *(Fix16 a, Fix16 b) { return new Fix16(Native.bsync_fx_mul_abi(a.Raw, b.Raw)); }
        public static Fix16 operator /(Fix16 a, Fix16 b) { return new Fix16(Native.bsync_fx_div_abi(a.Raw, b.Raw)); }
        public static Fix16 Sqrt(Fix16 x) { return new Fix16(Native.bsync_fx_sqrt_abi(x.Raw)); }
        public static Fix16 Lerp(Fix16 a, Fix16 b, Fix16 t) { return new Fix16(Native.bsync_fx_lerp_abi(a.Raw, b.Raw, t.Raw)); }
        public static Fix16 Clamp(Fix16 x, Fix16 lo, Fix16 hi) { return new Fix16(Native.bsync_fx_clamp_abi(x.Raw, lo.Raw, hi.Raw)); }

        public static bool operator ==(Fix16 a, Fix16 b) { return a.Raw == b.Raw; }
        public static bool operator !=(Fix16 a, Fix16 b) { return a.Raw != b.Raw; }
        public static bool operator <(Fix16 a, Fix16 b) { return a.Raw < b.Raw; }
        public static bool operator >(Fix16 a, Fix16 b) { return a.Raw > b.Raw; }
        public static bool operator <=(Fix16 a, Fix16 b) { return a.Raw <= b.Raw; }
        public static bool operator >=(Fix16 a, Fix16 b) { return a.Raw >= b.Raw; }
        public bool Equals(Fix16 o) { return Raw == o.Raw; }
        public override bool Equals(object o) { return o is Fix16 && ((Fix16)o).Raw == Raw; }
        public override int GetHashCode() { return Raw; }
        public int CompareTo(Fix16 o) { return Raw.CompareTo(o.Raw); }

        // ------------------------------------------------------------ decimal text (fixed_text.c)
        static readonly ulong[] Pow10 = {
            1ul, 10ul, 100ul, 1000ul, 10000ul, 100000ul, 1000000ul, 10000000ul, 100000000ul, 1000000000ul,
            10000000000ul, 100000000000ul, 1000000000000ul, 10000000000000ul, 100000000000000ul,
            1000000000000000ul, 10000000000000000ul, 100000000000000000ul };
        const ulong FivePow17 = 762939453125ul;
        const long ExpLimit = 1L << 50;

        /// <summary>JSON's number grammar, rounded exactly to the nearest raw step (ties away from zero).
        /// Returns Result.Ok, ParseError or Overflow, exactly as bsync_fx_parse.</summary>
        public static Result TryParse(string text, out Fix16 value)
        {
            value = Zero;
            if (text == null) return Result.InvalidArgument;
            int len = text.Length, i = 0;
            bool neg = false;
            if (i < len && text[i] == '-') { neg = true; i++; }
            int intStart = i;
            if (i >= len || !IsDigit(text[i])) return Result.ParseError;
            if (text[i] == '0') i++;
            else while (i < len && IsDigit(text[i])) i++;
            int intEnd = i, fracStart = i, fracEnd = i;
            if (i < len && text[i] == '.')
            {
                i++;
                fracStart = i;
                if (i >= len || !IsDigit(text[i])) return Result.ParseError;
                while (i < len && IsDigit(text[i])) i++;
                fracEnd = i;
            }
            long e = 0;
            if (i < len && (text[i] == 'e' || text[i] == 'E'))
            {
                i++;
                bool eneg = false;
                if (i < len && (text[i] == '+' || text[i] == '-')) { eneg = text[i] == '-'; i++; }
                if (i >= len || !IsDigit(text[i])) return Result.ParseError;
                while (i < len && IsDigit(text[i]))
                {
                    if (e < ExpLimit) e = e * 10 + (text[i] - '0');
                    i++;
                }
                if (e > ExpLimit) e = ExpLimit;
                if (eneg) e = -e;
            }
            if (i != len) return Result.ParseError;
            ulong whole = 0, f17 = 0;
            int nInt = intEnd - intStart;
            long p = nInt - 1 + e;
            int nAll = nInt + (fracEnd - fracStart);
            for (int j = 0; j < nAll && p >= -17; j++, p--)
            {
                int at = j < nInt ? intStart + j : fracStart + (j - nInt);
                uint d = (uint)(text[at] - '0');
                if (d == 0) continue;
                if (p >= 5) return Result.Overflow;
                if (p >= 0) whole += d * Pow10[p];
                else f17 += d * Pow10[17 + p];
            }
            ulong h = (whole << 17) + f17 / FivePow17;
            ulong mag = (h + 1) >> 1;
            if (mag > 0x7FFFFFFFul) return Result.Overflow;
            value = new Fix16(neg ? (int)(-(long)mag) : (int)mag);
            return Result.Ok;
        }

        /// <summary>Parse or throw a BlendsyncException (ParseError / Overflow).</summary>
        public static Fix16 Parse(string text)
        {
            Fix16 v;
            Result r = TryParse(text, out v);
            if (r != Result.Ok) throw new BlendsyncException(r, "\"" + text + "\"");
            return v;
        }

        static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

        static bool RoundTrips(ulong d, int n, ulong m)
        {
            ulong h = (d << 17) / Pow10[n];
            return ((h + 1) >> 1) == m;
        }

        /// <summary>The shortest decimal that parses back to this raw value (bsync_fx_format).</summary>
        public override string ToString()
        {
            ulong m = Raw < 0 ? (ulong)(-(long)Raw) : (ulong)Raw;
            bool neg = Raw < 0;
            ulong digits = 0;
            int n;
            for (n = 0; n <= 5; n++)
            {
                ulong scaled = m * Pow10[n];
                ulong d0 = scaled >> 16, d1 = d0 + 1;
                bool ok0 = RoundTrips(d0, n, m), ok1 = RoundTrips(d1, n, m);
                if (ok0 && ok1)
                {
                    ulong dist0 = scaled - (d0 << 16), dist1 = (d1 << 16) - scaled;
                    digits = dist1 < dist0 ? d1 : d0;
                    break;
                }
                if (ok0 || ok1) { digits = ok0 ? d0 : d1; break; }
            }
            char[] tmp = new char[32];
            int k = 0;
            ulong ip = digits / Pow10[n], fp = digits % Pow10[n];
            for (int i = 0; i < n; i++) { tmp[k++] = (char)('0' + (int)(fp % 10)); fp /= 10; }
            if (n > 0) tmp[k++] = '.';
            do { tmp[k++] = (char)('0' + (int)(ip % 10)); ip /= 10; } while (ip != 0);
            if (neg) tmp[k++] = '-';
            Array.Reverse(tmp, 0, k);
            return new string(tmp, 0, k);
        }
    }
}
