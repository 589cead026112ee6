// A protected program: it runs only with a valid license, online or (for a while) offline.
using System;
using System.IO;
using Licensing;

public static class CheckLicense
{
    public static int Main(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: CheckLicense LICENSE-KEY");
            return 2;
        }
        // The offline token is kept in the user's home, so the program also starts without a network for a while.
        string stateDir = Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".example-app");

        // Ship these three with the program; the key is your application's public key (PEM or JWK), pinned.
        string url = Environment.GetEnvironmentVariable("LICENSING_URL");
        string appId = Environment.GetEnvironmentVariable("LICENSING_APP_ID");
        string publicKey = Environment.GetEnvironmentVariable("LICENSING_PUBLIC_KEY");

        using (var client = new LicenseClient(url, appId, publicKey, stateDir))
        {
            try
            {
                using (LicenseResult result = client.Check(license: args[0], hwid: client.MachineId()))
                {
                    if (result.Offline) Console.WriteLine("Offline: licensed until " + result.GetString("offline_until") + " at the latest");
                    Console.WriteLine("Licensed (" + result.GetString("subscription_name") + "), valid until " + (result.GetString("expires_at") ?? "forever"));
                }
            }
            catch (LicenseException error)
            {
                Console.Error.WriteLine("This copy is not licensed: " + error.Code);
                return 1;
            }
        }
        // ... the program itself ...
        return 0;
    }
}
