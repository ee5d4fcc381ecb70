module tb;
    reg  [15:0] din;
    wire [4:0]  count;
    wire        all_zero;
    reg  [4:0]  exp_count;
    reg         seen;
    integer errors, samples, i, k, seed, shift;

    lzc16 dut (.din(din), .count(count), .all_zero(all_zero));

    initial begin
        errors = 0; samples = 0; seed = 16;
        for (i = 0; i < 1200; i = i + 1) begin
            din = $random(seed);
            shift = $random(seed) & 15;
            din = din >> shift;  // spread the leading-zero counts
            if (i < 17) din = (i == 16) ? 16'h0 : (16'h8000 >> i);
            #1;
            exp_count = 0; seen = 0;
            for (k = 15; k >= 0; k = k - 1) begin
                if (din[k]) seen = 1;
                if (!seen) exp_count = exp_count + 1;
            end
            samples = samples + 1;
            if (count !== exp_count) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=count expected=%h got=%h din=%h", $time, exp_count, count, din);
            end
            if (all_zero !== (din == 16'h0)) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=all_zero expected=%h got=%h din=%h", $time, din == 16'h0, all_zero, din);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
