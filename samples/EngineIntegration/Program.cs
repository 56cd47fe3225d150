System.Console.WriteLine("EngineIntegration sample: coming with the model readers.");
