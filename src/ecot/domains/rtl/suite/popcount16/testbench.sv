module tb;
    reg  [15:0] din;
    wire [4:0]  count;
    reg  [4:0]  exp_count;
    integer errors, samples, i, k, seed;

    popcount16 dut (.din(din), .count(count));

    initial begin
        errors = 0; samples = 0; seed = 8;
        for (i = 0; i < 1200; i = i + 1) begin
            din = $random(seed);
            if (i < 17) din = (17'h1 << i) - 1;  // 0, 1, 3, 7 ... FFFF
            if (i % 50 == 20) din = 16'hFFFF;
            #1;
            exp_count = 0;
            for (k = 0; k < 16; k = k + 1) exp_count = exp_count + din[k];
            samples = samples + 1;
            if (count !== exp_count) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=count expected=%h got=%h din=%h", $time, exp_count, count, din);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
