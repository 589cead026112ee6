// One call of the license-file and trial surface per run, for the cases that
// test/support/native-license-files.ts shares among the native libraries:
//   mono LicenseFilesDriver.exe <call> [name=value ...]
// with the client's settings in LICENSING_URL (unset: no service), LICENSING_APP_ID,
// LICENSING_PUBLIC_KEY, LICENSING_STATE_DIR, LICENSING_TIMEOUT_MS and LICENSING_NOW
// (seconds). Prints one JSON line: {"ok":true,"message","data","offline"} or {"ok":false,"code","data"}.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using Licensing;

internal static class LicenseFilesDriver
{
    private static string Quote(string text)
    {
        var quoted = new StringBuilder("\"");
        foreach (char c in text)
        {
            if (c == '"' || c == '\\') quoted.Append('\\').Append(c);
            else if (c < ' ') quoted.AppendFormat(CultureInfo.InvariantCulture, "\\u{0:x4}", (int)c);
            else quoted.Append(c);
        }
        return quoted.Append('"').ToString();
    }

    private static string Line(LicenseResult result)
    {
        return "{\"ok\":true,\"message\":" + Quote(result.Message) + ",\"data\":" + result.DataJson + ",\"offline\":" + (result.Offline ? "true" : "false") + "}";
    }

    private static string Data(string json)
    {
        return "{\"ok\":true,\"message\":\"\",\"data\":" + json + ",\"offline\":false}";
    }

    public static int Main(string[] args)
    {
        var fields = new Dictionary<string, string>();
        for (int i = 1; i < args.Length; i++)
        {
            int equals = args[i].IndexOf('=');
            fields[args[i].Substring(0, equals)] = args[i].Substring(equals + 1);
        }
        Func<string, string> field = name => fields.ContainsKey(name) ? fields[name] : null;
        string now = Environment.GetEnvironmentVariable("LICENSING_NOW");
        string timeout = Environment.GetEnvironmentVariable("LICENSING_TIMEOUT_MS");
        Func<DateTimeOffset> clock = null;
        if (now != null) clock = () => DateTimeOffset.FromUnixTimeMilliseconds((long)(double.Parse(now, CultureInfo.InvariantCulture) * 1000));
        long lifetime = field("lifetime_seconds") == null ? 0 : long.Parse(field("lifetime_seconds"), CultureInfo.InvariantCulture);
        bool encrypt = field("encrypt") == "true";
        string license = field("license"), hwid = field("hwid");
        using (var client = new LicenseClient(Environment.GetEnvironmentVariable("LICENSING_URL"), Environment.GetEnvironmentVariable("LICENSING_APP_ID"),
            Environment.GetEnvironmentVariable("LICENSING_PUBLIC_KEY"), Environment.GetEnvironmentVariable("LICENSING_STATE_DIR"),
            timeout == null ? 0 : int.Parse(timeout, CultureInfo.InvariantCulture), clock))
        {
            try
            {
                switch (args[0])
                {
                    case "check":
                        using (LicenseResult result = client.Check(license, field("username"), field("password"), hwid)) Console.WriteLine(Line(result));
                        break;
                    case "license-file":
                        using (LicenseResult result = client.LicenseFile(hwid, license, field("username"), field("password"), lifetime, encrypt)) Console.WriteLine(Line(result));
                        break;
                    case "activation-request":
                        ActivationRequestResult made = client.ActivationRequest(license, hwid, lifetime, encrypt, field("portal_url"));
                        Console.WriteLine(Data("{\"request\":" + Quote(made.Request) + (made.Link == null ? "" : ",\"link\":" + Quote(made.Link)) + "}"));
                        break;
                    case "load":
                        using (LicenseResult result = client.LoadLicenseFile(field("text"))) Console.WriteLine(Line(result));
                        break;
                    case "return-code":
                        Console.WriteLine(Data("{\"return_code\":" + Quote(client.ReturnCode(license, hwid)) + "}"));
                        break;
                    case "return-file":
                        using (LicenseResult result = client.ReturnLicenseFile(license, hwid)) Console.WriteLine(Line(result));
                        break;
                    case "trial":
                        using (LicenseResult result = client.StartTrial(hwid)) Console.WriteLine(Line(result));
                        break;
                    default:
                        Console.Error.WriteLine("unknown call " + args[0]);
                        return 2;
                }
            }
            catch (LicenseException error)
            {
                Console.WriteLine("{\"ok\":false,\"code\":" + Quote(error.Code) + ",\"data\":" + (error.DataJson ?? "null") + "}");
            }
        }
        return 0;
    }
}
