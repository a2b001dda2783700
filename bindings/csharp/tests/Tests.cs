// Tests.cs — the C# binding's test program (ctest csharp_unit and csharp_layout; plain exit codes, no
// NUnit). `mono Blendsync.Tests.exe unit SOURCE_DIR WORK_DIR` runs every check and exits 1 on a
// failure; `mono Blendsync.Tests.exe --layout` prints the binding's struct layout for abi_layout.c's.
using System;
using System.IO;
using Blendsync;

static class T
{
    static int pass, fail;
    public static string Src, Work;

    public static void Check(bool ok, string what)
    {
        if (ok) { pass++; Console.WriteLine("ok   " + what); }
        else { fail++; Console.WriteLine("FAIL " + what); }
    }

    public static void Throws<E>(Action a, Func<E, bool> ok, string what) where E : Exception
    {
        try { a(); Check(false, what + " (nothing thrown)"); }
        catch (E e)
        {
            bool good = ok == null || ok(e);
            Check(good, what + (good ? "" : " (got: " + e.Message + ")"));
        }
        catch (Exception e) { Check(false, what + " (threw " + e.GetType().Name + ": " + e.Message + ")"); }
    }

    public static string Write(string name, string text)
    {
        string p = Path.Combine(Work, name);
        File.WriteAllText(p, text);
        return p;
    }

    static int Main(string[] args)
    {
        if (args.Length == 1 && args[0] == "--layout") { Layout.Print(); return 0; }
        if (args.Length != 3 || args[0] != "unit")
        {
            Console.Error.WriteLine("usage: Blendsync.Tests.exe unit SOURCE_DIR WORK_DIR | --layout");
            return 2;
        }
        Src = args[1];
        Work = args[2];
        Directory.CreateDirectory(Work);
        Check(Library.Version == Library.BindingVersion && Library.VersionString == "0.5.0",
              "the loaded library is 0.5.0 (bsync_version " + Library.Version.ToString("x6") + ")");
        Library.CheckVersion();
        Fix16Tests.Run();
        GraphTests.Run();
        MatchTests.Run();
        ReplayTests.Run();
        ClientTests.Run();
        UnityLogicTests.Run();
        AllocationTests.Run();
        MiscTests.Run();
        PresentTests.Run();
        ScriptTests.Run();
        ActionTests.Run();
        Console.WriteLine(pass + " passed, " + fail + " failed");
        return fail == 0 ? 0 : 1;
    }
}
