// A program licensed per concurrent seat: it holds one while it runs and counts each export.
using System;
using Licensing;

public static class FloatingSeat
{
    private static volatile bool lost;

    public static int Main(string[] args)
    {
        var client = new LicenseClient(Environment.GetEnvironmentVariable("LICENSING_URL"), Environment.GetEnvironmentVariable("LICENSING_APP_ID"),
                                       Environment.GetEnvironmentVariable("LICENSING_PUBLIC_KEY"), null);
        string device = client.MachineId();
        try
        {
            // Takes the seat now and renews it on its own thread; disposing it gives the seat back.
            using (Heartbeat seat = client.StartHeartbeat(device, why => { Console.Error.WriteLine("The seat was lost: " + why.Code); lost = true; }, license: args[0]))
            {
                Console.WriteLine("Seat held until " + seat.LeaseExpiresAt.ToString("o"));

                // ... the program's work, checking `lost` between steps ...
                using (LicenseResult usage = client.RecordUsage("exports", license: args[0], hwid: device))
                {
                    Console.WriteLine("Export counted, " + usage.GetInteger("remaining") + " left");
                }
                if (lost) return 3;
            }
        }
        catch (LicenseException error)
        {
            if (error.Code == "SEATS_EXHAUSTED") Console.Error.WriteLine("Every seat is in use (" + error.DataJson + ")");
            else Console.Error.WriteLine("Not licensed: " + error.Code);
            return 1;
        }
        finally
        {
            client.Dispose();
        }
        return 0;
    }
}
