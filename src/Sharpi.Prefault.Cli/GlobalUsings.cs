// The namespaces the tool's commands and files all speak in: the command line, invariant formatting, the files it
// works on and the output it writes.
global using System.CommandLine;
global using System.Globalization;
global using Sharpi.Prefault.Cli.Files;
global using Sharpi.Prefault.Cli.Output;
