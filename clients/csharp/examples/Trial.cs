// A program that starts without a key: it asks for this computer's trial (one per computer, however often it asks) and runs while it lasts.
using System;
using System.IO;
using Licensing;

public static class Trial
{
    public static int Main()
    {
        string stateDir = Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".example-app");
        string url = Environment.GetEnvironmentVariable("LICENSING_URL");
        string appId = Environment.GetEnvironmentVariable("LICENSING_APP_ID");
        string publicKey = Environment.GetEnvironmentVariable("LICENSING_PUBLIC_KEY");

        using (var client = new LicenseClient(url, appId, publicKey, stateDir))
        {
            string hwid = client.MachineId();
            try
            {
                // TRIAL_STARTED the first time, TRIAL_RESUMED after: the same trial license, whose key the program checks with.
                using (LicenseResult trial = client.StartTrial(hwid))
                {
                    Console.WriteLine(trial.Message + " until " + trial.GetString("expires_at"));
                    using (LicenseResult result = client.Check(license: trial.GetString("license"), hwid: hwid))
                    {
                        Console.WriteLine("Licensed (" + result.GetString("subscription_name") + ")");
                    }
                }
            }
            catch (LicenseException error)
            {
                if (error.Code == "TRIAL_EXPIRED") Console.Error.WriteLine("Your trial has ended: buy a license to go on");
                else if (error.Code == "TRIAL_CONVERTED") Console.Error.WriteLine("This computer's trial was bought: start the program with your license key");
                else Console.Error.WriteLine("This copy is not licensed: " + error.Code);
                return 1;
            }
        }
        // ... the program itself ...
        return 0;
    }
}
