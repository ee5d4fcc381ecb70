module tb;
    reg  [7:0]  a, b;
    reg         is_signed;
    wire [15:0] p;
    reg  [15:0] exp_p;
    integer errors, samples, i, seed, sa, sb;

    mul8x8 dut (.a(a), .b(b), .is_signed(is_signed), .p(p));

    initial begin
        errors = 0; samples = 0; seed = 1234;
        for (i = 0; i < 1500; i = i + 1) begin
            a = $random(seed); b = $random(seed); is_signed = $random(seed);
            if (i % 16 == 0) begin a = 8'h80; b = 8'h80; end
            if (i % 16 == 1) begin a = 8'hFF; b = 8'hFF; end
            if (i % 16 == 2) b = 8'h00;
            #1;
            sa = (is_signed && a[7]) ? a - 256 : a;
            sb = (is_signed && b[7]) ? b - 256 : b;
            exp_p = sa * sb;
            samples = samples + 1;
            if (p !== exp_p) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=p expected=%h got=%h a=%h b=%h is_signed=%b", $time, exp_p, p, a, b, is_signed);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
