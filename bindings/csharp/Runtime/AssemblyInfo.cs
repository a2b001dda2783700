// AssemblyInfo.cs — the test program may call Native directly (to compare the ports with the C functions).
using System.Runtime.CompilerServices;

[assembly: InternalsVisibleTo("Blendsync.Tests")]
