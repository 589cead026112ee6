// An air-gapped program: the computer never reaches the service. It shows an
// activation request (a link a phone can open), accepts the license file made
// from it, and from then on runs from that file until the file's end.
using System;
using System.IO;
using Licensing;

public static class AirGapped
{
    public static int Main(string[] args)
    {
        if (args.Length < 1 || args.Length > 2)
        {
            Console.Error.WriteLine("usage: AirGapped LICENSE-KEY [LICENSE-FILE] | --return LICENSE-KEY");
            return 2;
        }
        string stateDir = Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".example-app");
        string appId = Environment.GetEnvironmentVariable("LICENSING_APP_ID");
        string publicKey = Environment.GetEnvironmentVariable("LICENSING_PUBLIC_KEY");

        // No url: this client never goes online. The license file and the pending request live in stateDir.
        using (var client = new LicenseClient(null, appId, publicKey, stateDir))
        {
            string hwid = client.MachineId();
            try
            {
                if (args[0] == "--return" && args.Length == 2)
                {
                    // Moving to another computer: the file is deleted, and the code tells the vendor this one no longer uses it.
                    Console.WriteLine("Give this return code to your vendor: " + client.ReturnCode(args[1], hwid));
                    return 0;
                }
                string license = args[0];
                if (args.Length == 2)
                {
                    client.LoadLicenseFile(File.ReadAllText(args[1])).Dispose();
                }
                try
                {
                    using (LicenseResult result = client.Check(license: license, hwid: hwid))
                    {
                        Console.WriteLine("Licensed with the license file of this computer: " + result.Message);
                        return 0;
                    }
                }
                catch (LicenseException error) when (error.Code == "NETWORK_ERROR")
                {
                    // No file is stored for this license and computer yet.
                }
                ActivationRequestResult request = client.ActivationRequest(license, hwid, encrypt: true, portalUrl: Environment.GetEnvironmentVariable("LICENSING_PORTAL_URL"));
                Console.WriteLine("This computer is not activated yet. Open this link on a phone or another computer:");
                Console.WriteLine(request.Link);
                Console.WriteLine("then start the program again with the license file it gives: AirGapped " + license + " license.lic");
                return 3;
            }
            catch (LicenseException error)
            {
                Console.Error.WriteLine("This copy is not licensed: " + error.Code);
                return 1;
            }
        }
    }
}
