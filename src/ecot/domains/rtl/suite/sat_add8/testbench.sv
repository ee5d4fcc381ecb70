module tb;
    reg  [7:0] a, b;
    wire [7:0] y;
    wire       sat;
    reg  [7:0] exp_y;
    reg        exp_sat;
    integer errors, samples, i, seed, sa, sb, s;

    sat_add8 dut (.a(a), .b(b), .y(y), .sat(sat));

    initial begin
        errors = 0; samples = 0; seed = 555;
        for (i = 0; i < 1500; i = i + 1) begin
            a = $random(seed); b = $random(seed);
            if (i % 12 == 0) begin a = 8'h7F; b = 8'h01; end
            if (i % 12 == 1) begin a = 8'h80; b = 8'hFF; end
            if (i % 12 == 2) begin a = 8'h7F; b = 8'h80; end
            #1;
            sa = a[7] ? a - 256 : a;
            sb = b[7] ? b - 256 : b;
            s = sa + sb;
            exp_sat = (s > 127) || (s < -128);
            exp_y = (s > 127) ? 8'h7F : (s < -128) ? 8'h80 : s;
            samples = samples + 1;
            if (y !== exp_y) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=y expected=%h got=%h a=%h b=%h", $time, exp_y, y, a, b);
            end
            if (sat !== exp_sat) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=sat expected=%h got=%h a=%h b=%h", $time, exp_sat, sat, a, b);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
