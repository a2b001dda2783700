// Fix16Tests.cs — the C# ports of bsync_fx_format and bsync_fx_parse against the C functions
// themselves (P/Invoke), bit for bit: every raw value near 0 and near both ends of the range, a
// stride over the whole range and random raws (format, and parse of the text back); then random and
// hand-picked decimal texts (every digit count, exponents, invalid forms): the same result code and
// the same raw value.
using System;
using System.Text;
using Blendsync;

static unsafe class Fix16Tests
{
    static string CFormat(int raw)
    {
        byte* buf = stackalloc byte[32];
        ulong n = Native.bsync_fx_format(raw, buf, new UIntPtr(32)).ToUInt64();
        return new string((sbyte*)buf, 0, (int)n, Encoding.ASCII);
    }

    static Result CParse(string s, out int raw)
    {
        byte[] b = Encoding.ASCII.GetBytes(s);
        int v = 0;
        Result r;
        fixed (byte* p = b) r = (Result)Native.bsync_fx_parse(p == null ? (byte*)&v : p, new UIntPtr((uint)b.Length), &v);
        raw = v;
        return r;
    }

    static long formatChecked, formatBad, parseChecked, parseBad;
    static string firstBad;

    static void Raw(int raw)
    {
        string cs = Fix16.FromRaw(raw).ToString(), c = CFormat(raw);
        formatChecked++;
        if (cs != c) { formatBad++; if (firstBad == null) firstBad = "format raw " + raw + ": C# " + cs + " C " + c; return; }
        if (raw == int.MinValue) return; // formats as "-32768", which both parsers refuse (checked below)
        Fix16 back;
        int craw;
        Result r1 = Fix16.TryParse(cs, out back), r2 = CParse(c, out craw);
        parseChecked++;
        if (r1 != Result.Ok || r2 != Result.Ok || back.Raw != raw || craw != raw)
        {
            parseBad++;
            if (firstBad == null) firstBad = "round trip raw " + raw + " text " + cs;
        }
    }

    static void Text(string s)
    {
        Fix16 v;
        int craw;
        Result r1 = Fix16.TryParse(s, out v), r2 = CParse(s, out craw);
        parseChecked++;
        if (r1 != r2 || (r1 == Result.Ok && v.Raw != craw))
        {
            parseBad++;
            if (firstBad == null) firstBad = "parse \"" + s + "\": C# " + r1 + " " + v.Raw + ", C " + r2 + " " + craw;
        }
    }

    public static void Run()
    {
        var rng = new Random(20261202);
        for (int r = -200000; r <= 200000; r++) Raw(r);
        for (int k = 0; k <= 100000; k++) { Raw(int.MaxValue - k); Raw(int.MinValue + k); }
        for (long r = int.MinValue; r <= int.MaxValue; r += 1021) Raw((int)r);
        for (int k = 0; k < 1000000; k++) Raw(rng.Next(int.MinValue, int.MaxValue));
        T.Check(formatBad == 0 && parseBad == 0,
                "Fix16.ToString == bsync_fx_format and Fix16.Parse(text) == bsync_fx_parse == raw for " + formatChecked +
                " raw values" + (firstBad != null ? " (first difference: " + firstBad + ")" : ""));

        formatChecked = parseChecked = formatBad = parseBad = 0;
        firstBad = null;
        string[] fixedTexts = {
            "0", "-0", "1", "-1", "0.5", "-0.5", "32767.99998", "32767.99999", "-32767.99998", "-32768", "32768",
            "0.00000762939453125", "0.000007629394531249", "0.0000076293945312500001", "1e0", "1E+2", "1e-2", "5e4",
            "3.2767999e4", "1e-30", "1e30", "0e99999999999", "123456789e-4", "0.1", "0.2", "0.3", "1.4", "3.5",
            "+1", "01", "1.", ".5", "1e", "", "-", " 1", "1 ", "0x1", "inf", "nan", "1e+", "--1", "1.2.3", "1e5e5" };
        foreach (string s in fixedTexts) Text(s);
        var sb = new StringBuilder();
        for (int k = 0; k < 300000; k++)
        {
            sb.Length = 0;
            if (rng.Next(3) == 0) sb.Append('-');
            int intDigits = rng.Next(0, 7);
            if (intDigits == 0) sb.Append('0');
            else { sb.Append((char)('1' + rng.Next(9))); for (int i = 1; i < intDigits; i++) sb.Append((char)('0' + rng.Next(10))); }
            if (rng.Next(4) != 0)
            {
                sb.Append('.');
                int frac = 1 + rng.Next(rng.Next(2) == 0 ? 6 : 30);
                for (int i = 0; i < frac; i++) sb.Append((char)('0' + rng.Next(10)));
            }
            if (rng.Next(5) == 0)
            {
                sb.Append(rng.Next(2) == 0 ? 'e' : 'E');
                int m = rng.Next(3);
                if (m == 1) sb.Append('+'); else if (m == 2) sb.Append('-');
                sb.Append(rng.Next(0, 40));
            }
            if (rng.Next(50) == 0) sb.Insert(rng.Next(sb.Length + 1), "x. +e"[rng.Next(5)]); // some invalid ones
            Text(sb.ToString());
        }
        T.Check(parseBad == 0, "Fix16.TryParse == bsync_fx_parse (result code and raw value) for " + parseChecked + " decimal texts" +
                (firstBad != null ? " (first difference: " + firstBad + ")" : ""));

        T.Check(Fix16.Parse("1.4").Raw == 91750, "Fix16.Parse(\"1.4\") is raw 91750 (1.4 * 65536 = 91750.4, nearest)");
        T.Check(Fix16.Parse("-0.5").Raw == -32768 && Fix16.Parse("0.00001").Raw == 1, "-0.5 is -32768 raw; 0.00001 rounds to 1 raw step");
        T.Throws<BlendsyncException>(() => Fix16.Parse("32768"), e => e.Code == Result.Overflow, "Fix16.Parse(\"32768\") throws Overflow");
        T.Throws<BlendsyncException>(() => Fix16.Parse("1."), e => e.Code == Result.ParseError, "Fix16.Parse(\"1.\") throws ParseError");
        T.Check((Fix16.One + Fix16.One).Raw == 131072 && (Fix16.FromInt(3) * Fix16.Parse("0.5")).Raw == 98304 &&
                (Fix16.One / Fix16.FromInt(4)).Raw == 16384 && Fix16.Sqrt(Fix16.FromInt(4)).Raw == 131072,
                "Fix16 arithmetic through the _abi twins: 1+1, 3*0.5, 1/4, sqrt(4)");
        T.Check((Fix16.MaxValue + Fix16.One) == Fix16.MaxValue, "Fix16 addition saturates at MaxValue (the C side's rule)");
        T.Check(Fix16.FromDouble(0.25).Raw == 16384 && Fix16.FromRaw(98304).ToDouble() == 1.5, "FromDouble / ToDouble at the edges");
    }
}
