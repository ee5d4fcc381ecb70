module tb;
    reg  [1:0] sel;
    reg  [7:0] d0, d1, d2, d3;
    wire [7:0] y;
    reg  [7:0] exp_y;
    integer errors, samples, i, seed;

    mux4_bus dut (.sel(sel), .d0(d0), .d1(d1), .d2(d2), .d3(d3), .y(y));

    initial begin
        errors = 0; samples = 0; seed = 11;
        for (i = 0; i < 600; i = i + 1) begin
            sel = $random(seed);
            d0 = $random(seed); d1 = $random(seed); d2 = $random(seed); d3 = $random(seed);
            if (i % 7 == 3) d1 = d0;  // occasionally equal inputs
            #1;
            case (sel)
                2'b00: exp_y = d0;
                2'b01: exp_y = d1;
                2'b10: exp_y = d2;
                default: exp_y = d3;
            endcase
            samples = samples + 1;
            if (y !== exp_y) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=y expected=%h got=%h sel=%h d0=%h d1=%h d2=%h d3=%h",
                             $time, exp_y, y, sel, d0, d1, d2, d3);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
