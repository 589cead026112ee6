module licensing-service/clients/go

go 1.19
