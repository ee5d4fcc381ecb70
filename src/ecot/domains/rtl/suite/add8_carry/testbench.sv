module tb;
    reg  [7:0] a, b;
    reg        cin;
    wire [7:0] sum;
    wire       cout;
    reg  [8:0] expected;
    integer errors, samples, i, seed;

    add8_carry dut (.a(a), .b(b), .cin(cin), .sum(sum), .cout(cout));

    initial begin
        errors = 0; samples = 0; seed = 2024;
        for (i = 0; i < 1500; i = i + 1) begin
            a = $random(seed); b = $random(seed); cin = $random(seed);
            if (i % 10 == 0) begin a = 8'hFF; b = i[7:0]; end
            if (i % 10 == 1) begin a = 8'h80; b = 8'h80; end
            #1;
            expected = a + b + cin;
            samples = samples + 1;
            if (sum !== expected[7:0]) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=sum expected=%h got=%h a=%h b=%h cin=%b", $time, expected[7:0], sum, a, b, cin);
            end
            if (cout !== expected[8]) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=cout expected=%h got=%h a=%h b=%h cin=%b", $time, expected[8], cout, a, b, cin);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
