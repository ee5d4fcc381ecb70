module parity16 (
    input  wire        odd,
    input  wire [15:0] data,
    output wire        pbit,
    input  wire [16:0] rx,
    output wire        rx_err
);
    assign pbit   = (^data) ^ odd;
    assign rx_err = (^rx) ^ odd;
endmodule
