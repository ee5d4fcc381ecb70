module tb;
    reg        en;
    reg  [2:0] a;
    wire [7:0] y;
    reg  [7:0] exp_y;
    integer errors, samples, i, seed;

    decoder3to8_en dut (.en(en), .a(a), .y(y));

    initial begin
        errors = 0; samples = 0; seed = 23;
        // exhaustive pass first, then random order so every input changes alone sometimes
        for (i = 0; i < 16 + 300; i = i + 1) begin
            if (i < 16) {en, a} = i;
            else if (i % 3 == 0) en = $random(seed);
            else a = $random(seed);
            #1;
            exp_y = en ? (8'h01 << a) : 8'h00;
            samples = samples + 1;
            if (y !== exp_y) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=y expected=%h got=%h en=%b a=%0d", $time, exp_y, y, en, a);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
